import Foundation
import HueProtocol
import PatchbayTestSupport
import PatchbayValues

/// `patchbay-sim hue` for these tests: its command record is a JSON-lines file next to its
/// control socket.
extension SimulatorUnderTest {
  static func hueBridge(directory: TemporaryDirectory, port: Int = 0, arguments: [String]) throws
    -> SimulatorUnderTest
  {
    try SimulatorUnderTest(
      .hue, directory: directory, name: "bridge", port: port,
      arguments: ["--record", directory.path + "/bridge-record.jsonl"] + arguments)
  }

  var recordPath: String { (controlPath as NSString).deletingLastPathComponent + "/bridge-record.jsonl" }

  /// A light's state as the bridge holds it.
  func light(_ id: String) throws -> HueLightState {
    let answer = try control("light \(id)")
    guard let json = JSONValue(data: Data(answer.utf8)), let light = HueAnswerParser.light(json) else {
      throw SimulatorControlError(description: "light \(id): unreadable answer \(answer)")
    }
    return light.state
  }

  /// Every command the bridge received so far, oldest first.
  func records() -> [JSONValue] {
    let text = (try? String(contentsOfFile: recordPath, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { JSONValue(data: Data($0.utf8)) }
  }
}
