import Foundation
import PatchbayTestSupport

/// `patchbay-sim hue` for the party: three color lights in group 1 ("living"), a known
/// username, and the record of every command it received next to its control socket.
extension SimulatorUnderTest {
  static let partyUsername = "partytest"

  /// One command from the bridge's record, in v1 units.
  struct BridgeCommand {
    var time: Double
    var kind: String
    var id: String
    var outcome: String
    var body: [String: Any]
    var hue: Int? { (body["hue"] as? NSNumber)?.intValue }
    var sat: Int? { (body["sat"] as? NSNumber)?.intValue }
    var bri: Int? { (body["bri"] as? NSNumber)?.intValue }
    var on: Bool? { body["on"] as? Bool }
  }

  static func partyBridge(directory: TemporaryDirectory) throws -> SimulatorUnderTest {
    try SimulatorUnderTest(
      .hue, directory: directory,
      arguments: [
        "--lights", "3", "--group", "living=1,2,3", "--username", partyUsername, "--record",
        directory.path + "/hue.jsonl",
      ])
  }

  /// The hue instance for the hub's config, with member ports living.light1...3.
  var partyInstanceConfig: String {
    """
    [instances.lights]
    plugin = "hue"
    bridge = "127.0.0.1:\(port)"
    username = "\(Self.partyUsername)"
    poll_interval_s = 0.5
    request_timeout_s = 1
    [[instances.lights.groups]]
    name = "living"
    id = "1"
    lights = ["1", "2", "3"]
    expose_lights = true
    """
  }

  /// Each light's state (on, bri, hue, sat) as the bridge holds it.
  func lightStates() throws -> [String: [String: Int]] {
    let json = try JSONSerialization.jsonObject(with: Data(try control("lights").utf8)) as? [String: Any] ?? [:]
    var states: [String: [String: Int]] = [:]
    for (id, light) in json {
      guard let state = (light as? [String: Any])?["state"] as? [String: Any] else { continue }
      var fields: [String: Int] = [:]
      for key in ["bri", "hue", "sat"] { fields[key] = (state[key] as? NSNumber)?.intValue }
      fields["on"] = (state["on"] as? Bool).map { $0 ? 1 : 0 }
      states[id] = fields
    }
    return states
  }

  /// Every command the bridge received so far.
  func commands() -> [BridgeCommand] {
    let record = (controlPath as NSString).deletingLastPathComponent + "/hue.jsonl"
    let text = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      guard let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let time = (json["t"] as? NSNumber)?.doubleValue, let kind = json["kind"] as? String,
        let id = json["id"] as? String, let outcome = json["outcome"] as? String,
        let body = json["body"] as? [String: Any]
      else { return nil }
      return BridgeCommand(time: time, kind: kind, id: id, outcome: outcome, body: body)
    }
  }
}

extension HubUnderTest {
  /// The party's saved record (capture and phase), as JSON.
  func savedRecord(instance: String = "party") -> [String: Any]? {
    savedState(instance: instance, file: "party.json")
  }
}
