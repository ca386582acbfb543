import Foundation
import PatchbayTestSupport

/// `patchbay-sim homebridge` started by a test, with its control socket.
final class SimulatorProcess {
  let port: Int
  let controlPath: String
  let child: ChildProcess

  init(port: Int, directory: TemporaryDirectory, arguments: [String] = [], name: String = "simulator") throws {
    self.port = port
    controlPath = directory.url.appendingPathComponent("\(name).sock").path
    child = try ChildProcess(
      BuildProducts.executable("patchbay-sim"),
      ["homebridge", "--port", String(port), "--control", controlPath] + arguments)
    try child.waitForLine(containing: "listening on")
  }

  var lines: [String] { child.lines }

  func waitForLine(containing text: String) throws { try child.waitForLine(containing: text) }

  /// Lines containing `text` printed so far.
  func count(_ text: String) -> Int { lines.filter { $0.contains(text) }.count }

  /// Sends control commands (one per line) and returns the reply.
  @discardableResult
  func control(_ commands: String...) throws -> String {
    // Each command's answer ends with an empty line.
    try ControlSocketClient.exchange(path: controlPath, request: commands.map { $0 + "\n" }.joined()) {
      $0.components(separatedBy: "\n\n").count > commands.count
    }
  }

  func stop() throws { try child.terminate() }
}
