import Foundation
import HueProtocol
import PatchbayValues

/// A line typed on stdin or sent to the control socket; `run` answers with one line
/// (`ok ...`, a JSON value, or `error: ...`).
enum ControlCommand: Sendable, Hashable {
  /// The user presses the bridge's link button: pairing works for the next 30 s.
  case pressLinkButton
  /// Someone changes a light with another app: `set 2 on=true bri=100 hue=1000 sat=200`.
  case set(light: String, values: [String: JSONValue])
  case reachable(light: String, Bool)
  /// Every answer waits this long from now on (a hanging bridge: longer than the client's timeout).
  case latency(milliseconds: Int)
  case light(String)
  case lights
  case stats
  case help

  static let usage = [
    "press-link-button             allow pairing for the next 30 s",
    "set ID KEY=VALUE ...          change a light behind the client's back (on, bri, hue, sat, ct)",
    "unreachable ID | reachable ID  the bulb loses or regains power/radio",
    "latency MS                    hold every request back MS milliseconds from now on",
    "light ID | lights             print the state as JSON",
    "stats                         accepted, dropped and rejected command counts",
  ]

  init(parsing line: String) throws(ControlError) {
    let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    switch (words.first ?? "", words.count) {
    case ("press-link-button", 1): self = .pressLinkButton
    case ("set", 3...):
      var values: [String: JSONValue] = [:]
      for pair in words.dropFirst(2) {
        let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw ControlError("'\(pair)' must be KEY=VALUE") }
        switch parts[1] {
        case "true": values[parts[0]] = .bool(true)
        case "false": values[parts[0]] = .bool(false)
        default:
          guard let number = Int(parts[1]) else {
            throw ControlError("'\(parts[1])' must be true, false or an integer")
          }
          values[parts[0]] = .integer(Int64(number))
        }
      }
      self = .set(light: words[1], values: values)
    case ("unreachable", 2): self = .reachable(light: words[1], false)
    case ("reachable", 2): self = .reachable(light: words[1], true)
    case ("latency", 2):
      guard let milliseconds = Int(words[1]), milliseconds >= 0 else {
        throw ControlError("latency takes milliseconds, not '\(words[1])'")
      }
      self = .latency(milliseconds: milliseconds)
    case ("light", 2): self = .light(words[1])
    case ("lights", 1): self = .lights
    case ("stats", 1): self = .stats
    case ("help", 1): self = .help
    default: throw ControlError("unknown command '\(line)'; commands: " + Self.usage.joined(separator: "; "))
    }
  }

  func run(on bridge: SimulatedBridge) throws(ControlError) -> String {
    switch self {
    case .pressLinkButton:
      bridge.pressLinkButton()
      return "ok link button pressed: pairing is open for \(Int(bridge.settings.linkWindowSeconds)) s"
    case .set(let light, let values):
      try bridge.setLight(light, values)
      return "ok light \(light) set"
    case .reachable(let light, let reachable):
      try bridge.setReachable(light, reachable)
      return "ok light \(light) \(reachable ? "reachable" : "unreachable")"
    case .latency(let milliseconds):
      bridge.setLatency(milliseconds: milliseconds)
      return "ok answers held back \(milliseconds) ms"
    case .light(let id):
      guard let json = bridge.lightJSON(id) else { throw ControlError("no light \(id)") }
      return json.text
    case .lights: return bridge.allLightsJSON().text
    case .stats: return bridge.counterText()
    case .help: return Self.usage.joined(separator: "; ")
    }
  }

  /// Parses and runs a line; errors become `error: ...`.
  static func answer(_ line: String, bridge: SimulatedBridge) -> String {
    do throws(ControlError) {
      return try ControlCommand(parsing: line).run(on: bridge)
    } catch {
      return "error: \(error.description)"
    }
  }
}
