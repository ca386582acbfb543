import Foundation
import PatchbayTestSupport

/// `patchbay-sim flicd` as a real process on a port the system chooses, driven through its
/// control socket (as in FlicTests; kept here so the MQTT chains need no other test target).
final class FlicdSimulatorProcess {
  let port: Int
  let controlPath: String
  let process: ChildProcess

  init(controlPath: String, buttons: [String]) throws {
    self.controlPath = controlPath
    process = try ChildProcess(
      BuildProducts.executable("patchbay-sim"),
      ["flicd", "--port", "0", "--control", controlPath, "--no-stdin"] + buttons.flatMap { ["--button", $0] })
    try process.waitForLine(containing: "control socket", within: 60)
    port = try listeningPort(process)
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

/// The port in a simulator's "... listening on [SCHEME://]HOST:PORT ..." line: started with
/// port 0, it says which one the system gave it (no guessed port another test could take).
func listeningPort(_ process: ChildProcess) throws -> Int {
  for line in process.lines {
    guard let range = line.range(of: "listening on ") else { continue }
    let address = line[range.upperBound...].prefix { !$0.isWhitespace }
    if let colon = address.lastIndex(of: ":"),
      let port = Int(address[address.index(after: colon)...].prefix { $0.isNumber })
    {
      return port
    }
  }
  throw TestSetupError("no 'listening on' line:\n\(process.output)")
}
