import Foundation
import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay-sim hue` for a test: three color lights in group 1 ("living"), a known username,
/// a control socket and the record of every command it received.
final class HueBridgeSimulator: @unchecked Sendable {
  static let username = "partytest"

  /// One command from the simulator's record, in v1 units.
  struct Command {
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

  let port = freeTCPPort()
  let controlPath: String
  let recordPath: String
  let process: ChildProcess

  init(directory: TemporaryDirectory) throws {
    controlPath = directory.path + "/hue.sock"
    recordPath = directory.path + "/hue.jsonl"
    process = try ChildProcess(
      BuildProducts.executable("patchbay-sim"),
      [
        "hue", "--port", String(port), "--lights", "3", "--group", "living=1,2,3", "--username", Self.username,
        "--control", controlPath, "--record", recordPath, "--no-stdin",
      ])
    try eventually("the simulator's control socket", within: 60) { FileManager.default.fileExists(atPath: controlPath) }
  }

  /// The hue instance for the hub's config, with member ports living.light1...3.
  var instanceConfig: String {
    """
    [instances.lights]
    plugin = "hue"
    bridge = "127.0.0.1:\(port)"
    username = "\(Self.username)"
    poll_interval_s = 0.5
    request_timeout_s = 1
    [[instances.lights.groups]]
    name = "living"
    id = "1"
    lights = ["1", "2", "3"]
    expose_lights = true
    """
  }

  /// One control command; its one-line answer.
  @discardableResult
  func control(_ line: String) throws -> String {
    let answer = try ControlSocketClient.exchange(path: controlPath, request: line + "\n") { $0.hasSuffix("\n") }
    guard !answer.hasPrefix("error") else { throw PartyHubError("hue simulator: \(line) -> \(answer)") }
    return answer.trimmingCharacters(in: .whitespacesAndNewlines)
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
  func commands() -> [Command] {
    let text = (try? String(contentsOfFile: recordPath, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      guard let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let time = (json["t"] as? NSNumber)?.doubleValue, let kind = json["kind"] as? String,
        let id = json["id"] as? String, let outcome = json["outcome"] as? String,
        let body = json["body"] as? [String: Any]
      else { return nil }
      return Command(time: time, kind: kind, id: id, outcome: outcome, body: body)
    }
  }

  deinit { process.signal(SIGKILL) }
}
