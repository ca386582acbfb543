import Foundation
import PatchbayTestSupport

/// `patchbay-sim flicd` as a real process, driven through its control socket.
final class SimulatorProcess {
  let port: Int
  let controlPath: String
  let process: ChildProcess

  init(port: Int, controlPath: String, buttons: [String], arguments: [String] = []) throws {
    self.port = port
    self.controlPath = controlPath
    process = try ChildProcess(
      BuildProducts.executable("patchbay-sim"),
      ["flicd", "--port", "\(port)", "--control", controlPath, "--no-stdin"] + buttons.flatMap { ["--button", $0] }
        + arguments)
    try process.waitForLine(containing: "control socket", within: 60)
  }

  /// Sends one control line and returns the simulator's one-line answer.
  @discardableResult
  func control(_ line: String) throws -> String {
    let answer = try ControlSocketClient.exchange(path: controlPath, request: line + "\n") { $0.contains("\n") }
    let text = answer.trimmingCharacters(in: .whitespacesAndNewlines)
    if text.hasPrefix("error") { throw SimulatorControlError(description: "\(line): \(text)") }
    return text
  }
}

struct SimulatorControlError: Error, CustomStringConvertible {
  var description: String
}
