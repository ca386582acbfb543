import Foundation
import PatchbayTestSupport

/// `patchbay-sim homebridge` as a real process: a homebridge-websocket server that prints each
/// characteristic write it receives ("setValue ws_morning.On = true"). As in HomebridgeTests;
/// kept here so the MQTT chains need no other test target.
final class HomebridgeSimulatorProcess {
  let port: Int
  let process: ChildProcess

  init(port: Int, directory: TemporaryDirectory) throws {
    self.port = port
    process = try ChildProcess(
      BuildProducts.executable("patchbay-sim"),
      ["homebridge", "--port", String(port), "--control", directory.path + "/homebridge.sock"])
    try process.waitForLine(containing: "listening on", within: 60)
  }

  /// Lines containing `text` printed so far.
  func count(_ text: String) -> Int { process.lines.filter { $0.contains(text) }.count }

  deinit { _ = try? process.terminate(within: 10) }
}
