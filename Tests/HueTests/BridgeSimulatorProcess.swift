import Foundation
import HueProtocol
import PatchbayTestSupport
import PatchbayValues

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay-sim hue` as a real process, driven through its control socket; its command
/// record is a JSON-lines file the tests read.
final class BridgeSimulatorProcess {
  let port: Int
  let controlPath: String
  let recordPath: String
  let process: ChildProcess

  init(port: Int, directory: TemporaryDirectory, arguments: [String]) throws {
    self.port = port
    controlPath = directory.path + "/bridge.sock"
    recordPath = directory.path + "/bridge-record.jsonl"
    process = try ChildProcess(
      BuildProducts.executable("patchbay-sim"),
      ["hue", "--port", "\(port)", "--control", controlPath, "--record", recordPath, "--no-stdin"] + arguments)
    try process.waitForLine(containing: "control socket", within: 60)
  }

  /// Sends one control line and returns the one-line answer; `error: ...` answers throw.
  @discardableResult
  func control(_ line: String) throws -> String {
    let answer = try ControlSocketClient.exchange(path: controlPath, request: line + "\n") { $0.contains("\n") }
      .trimmingCharacters(in: .whitespacesAndNewlines)
    if answer.hasPrefix("error") { throw SimulatorControlError(description: "\(line): \(answer)") }
    return answer
  }

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

  func kill() throws {
    process.signal(SIGKILL)
    try process.waitForExit()
  }
}

struct SimulatorControlError: Error, CustomStringConvertible {
  var description: String
}
