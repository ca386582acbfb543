import Foundation
import PatchbayTestSupport

/// The BlueZ stand-in (`Plugins/flic-ble/StandIn/flic_bluez.py`: python-dbusmock's bluez5
/// template with Flic GATT objects and simulated buttons) on a private system bus, driven through
/// its control channel (standard input; each command answered "ok" or "error ...").
final class BlueZStandIn: Sendable {
  static let python = "/usr/bin/python3"
  static let template = HubUnderTest.repositoryRoot + "/Plugins/flic-ble/StandIn/flic_bluez.py"

  /// Why it cannot run here, or nil.
  static let unavailable: String? = {
    if let reason = PrivateSystemBus.unavailable { return reason }
    let probe = try? runProgram(python, ["-c", "import dbusmock"])
    return probe?.status == 0 ? nil : "needs Debian's python3-dbusmock (\(python) -c 'import dbusmock' failed)"
  }()

  let bus: PrivateSystemBus
  let process: ChildProcess
  let logDirectory: TemporaryDirectory

  /// On `bus`, or on a new bus of its own.
  init(bus: PrivateSystemBus? = nil) throws {
    self.bus = try bus ?? PrivateSystemBus()
    logDirectory = try TemporaryDirectory("patchbay-bluez")
    let parameters = #"{"button_host": "\#(BuildProducts.executable("FlicBLEButtonHost"))"}"#
    process = try ChildProcess(
      Self.python,
      ["-m", "dbusmock", "--system", "-l", logDirectory.path + "/dbusmock.log", "-t", Self.template, "-p", parameters],
      environment: self.bus.environment, standardError: .file(logDirectory.path + "/standin.err"), keepInputOpen: true)
    try process.waitForLine(containing: "ready", within: 60)
  }

  /// What the simulated buttons and the stand-in logged (for failure messages).
  var log: String { (try? String(contentsOfFile: logDirectory.path + "/standin.err", encoding: .utf8)) ?? "" }

  /// Sends one control command and waits for its answer; throws on "error ...".
  func control(_ command: String) throws {
    let before = process.lineCount
    try process.write(command + "\n")
    try eventually("the stand-in's answer to '\(command)'; output:\n\(process.output)", within: 60) {
      process.lineCount > before || !process.isRunning
    }
    let answer = process.lines.dropFirst(before).first ?? "(ended)"
    guard answer == "ok" else { throw ChildProcessError("stand-in: '\(command)' answered \(answer)\n\(log)") }
  }

  /// Ends bluetoothd and its buttons (they are gone with it).
  func stop() {
    try? process.closeInput()
    _ = try? process.terminate()
  }

  deinit { stop() }
}
