import Foundation
import PatchbayTestSupport

/// `patchbay-sim flicd` as a real process, driven through its control socket (as in
/// FlicTests; kept here so the MQTT chains need no other test target).
final class FlicdSimulatorProcess {
  let port: Int
  let controlPath: String
  let process: ChildProcess

  init(port: Int, controlPath: String, buttons: [String]) throws {
    self.port = port
    self.controlPath = controlPath
    process = try ChildProcess(
      BuildProducts.executable("patchbay-sim"),
      ["flicd", "--port", "\(port)", "--control", controlPath, "--no-stdin"] + buttons.flatMap { ["--button", $0] })
    try process.waitForLine(containing: "control socket", within: 60)
  }

  /// Sends one control line ("press ADDR single") and returns the simulator's one-line answer.
  @discardableResult
  func control(_ line: String) throws -> String {
    let answer = try ControlSocketClient.exchange(path: controlPath, request: line + "\n") { $0.contains("\n") }
    let text = answer.trimmingCharacters(in: .whitespacesAndNewlines)
    if text.hasPrefix("error") { throw TestSetupError("flicd simulator, \(line): \(text)") }
    return text
  }

  deinit { _ = try? process.terminate(within: 10) }
}
