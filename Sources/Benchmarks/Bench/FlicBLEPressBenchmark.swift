import ChildProcesses
import Foundation
import PatchbayHub
import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Figure 12: a Flic 2 press through BlueZ. The BlueZ stand-in (python-dbusmock on a private
/// system bus, Plugins/flic-ble/StandIn) emits the button's notification as BlueZ does (a
/// PropertiesChanged of the characteristic's Value) and logs the CLOCK_MONOTONIC time it did;
/// the sample ends when `patchbay watch` shows the `down` on the flic-ble instance's button port.
/// Beside it, in the same hub and run, the flic plugin through the flicd simulator: from the
/// line where the simulator says it sent the press to the same watch line. And the flic-ble
/// plugin host's RSS and PSS.
///
/// The release build trusts only Shortcut Labs' factory keys, so it cannot pair a simulated
/// button. The simulator pairs with a central in its own process instead (`pair-in-process`,
/// full verify against its test key, as a phone would pair it) and the benchmark writes that
/// pairing into the instance's state directory: the plugin under test only quick-verifies,
/// which needs no factory key. The release build stays exactly as shipped.
struct FlicBLEPressBenchmark {
  struct Result {
    var flicBLE: [UInt64] = []
    var flicd: [UInt64] = []
    var memory: (rss: Double, pss: Double)?
  }

  static let address = "80:E4:DA:71:B6:01"

  let tools: BenchTools
  let presses: Int

  /// Why it cannot run here, or nil.
  static func unavailable(_ tools: BenchTools) -> String? {
    if let reason = PrivateSystemBus.unavailable { return reason }
    guard FileManager.default.isExecutableFile(atPath: tools.productDirectory + "/FlicBLEButtonHost") else {
      return "FlicBLEButtonHost is missing from \(tools.productDirectory)"
    }
    let probe = try? ChildProcess.runToEnd("/usr/bin/python3", ["-c", "import dbusmock"])
    return probe?.status == 0 ? nil : "needs Debian's python3-dbusmock"
  }

  func run(sourceRoot: String) throws -> Result {
    let directory = try tools.directory("flic-ble")
    let bus = try PrivateSystemBus()
    defer { try? bus.stop() }
    let parameters = #"{"button_host": "\#(tools.productDirectory)/FlicBLEButtonHost", "timestamps": true}"#
    let standIn = try ChildProcess(
      "/usr/bin/python3",
      [
        "-m", "dbusmock", "--system", "-l", directory + "/dbusmock.log", "-t",
        sourceRoot + "/Plugins/flic-ble/StandIn/flic_bluez.py", "-p", parameters,
      ], environment: bus.environment, keepInputOpen: true, outputCopy: directory + "/standin.log")
    defer { _ = try? standIn.terminate(within: 10) }
    try standIn.waitForLine(containing: "ready", within: 60)
    _ = try Self.control(standIn, "add \(Self.address)")
    let fields = try Self.control(standIn, "pair-in-process \(Self.address)")
      .first { $0.hasPrefix("pairing ") }?.dropFirst("pairing ".count).split(separator: " ")
    guard let fields else { throw BenchError("the simulator did not pair in process") }
    let instanceState = directory + "/state/instances/flicble"
    try FileManager.default.createDirectory(atPath: instanceState, withIntermediateDirectories: true)
    let pairing = instanceState + "/bench.flic2"
    try (fields.joined(separator: "\n") + "\n").write(toFile: pairing, atomically: false, encoding: .utf8)
    chmod(pairing, 0o600)

    let simulators = try SimulatorSet([BundledPlugin.flic], tools: tools, directory: directory)
    defer { simulators.stop() }
    let config =
      simulators.config([BundledPlugin.flic]) + """
        [instances.flicble]
        plugin = "flic-ble"
        expose_up_down = true
        [[instances.flicble.buttons]]
        name = "bench"
        address = "\(Self.address.lowercased())"

        """
    let hub = try HubProcess(tools: tools, directory: directory, config: config, environment: bus.environment)
    defer { hub.stop() }
    try hub.waitUntilRunning()
    guard let flicd = simulators.processes["flic"], let control = simulators.controls["flic"] else {
      throw BenchError("the flicd simulator did not start")
    }
    _ = try Self.flicdControl(control, "wait-channel \(BundledPlugin.buttonAddress) 60")
    // The plugin found the button (discovery), connected, quick-verified and started events.
    try standIn.waitForLine(containing: "initButtonEventsResponse", within: 120)
    let bleButton = WatchedLines(hub: hub, pattern: "flicble.bench.button")
    let flicButton = WatchedLines(hub: hub, pattern: "flic.button.button")
    var result = Result()
    for index in 0..<presses {
      let mark = standIn.lineCount
      _ = try Self.control(standIn, "press \(Self.address) click")
      let notified = try standIn.waitForLine(containing: "notified \(Self.address)", after: mark, within: 30)
      guard let emitted = notified.text.split(separator: " ").last.flatMap({ UInt64($0) }) else {
        throw BenchError("unreadable stand-in line: \(notified.text)")
      }
      if let seen = bleButton.first(containing: "down", after: emitted) { result.flicBLE.append(seen - emitted) }
      // The click completes (its timeout event) before the next press.
      _ = bleButton.first(containing: "click", after: emitted)

      let flicdMark = flicd.lineCount
      _ = try Self.flicdControl(control, "press \(BundledPlugin.buttonAddress) down")
      let sent = try flicd.waitForLine(containing: "press [", after: flicdMark, within: 30).arrival
      if let seen = flicButton.first(containing: "down", after: sent) { result.flicd.append(seen - sent) }
      _ = try Self.flicdControl(control, "press \(BundledPlugin.buttonAddress) up")
      if index == presses / 2, let pid = hub.pid(of: "flicble") { result.memory = ProcessStats.memory(pid) }
      usleep(20_000)
    }
    return result
  }

  /// One stand-in command; the lines it printed before its "ok".
  static func control(_ standIn: ChildProcess, _ line: String) throws -> [String] {
    let mark = standIn.lineCount
    try standIn.write(line + "\n")
    let answer = try standIn.waitForLine(containing: "ok", after: mark, within: 60)
    let printed = standIn.lines.dropFirst(mark)
    if let refusal = printed.first(where: { $0.hasPrefix("error") }) {
      throw BenchError("stand-in refused '\(line)': \(refusal)")
    }
    _ = answer
    return Array(printed)
  }

  private static func flicdControl(_ path: String, _ line: String) throws -> String {
    let stream = try UnixStream.connect(to: path)
    defer { stream.close() }
    _ = stream.writeLine(line)
    let answer = stream.readLine() ?? ""
    if answer.hasPrefix("error") { throw BenchError("flicd simulator refused '\(line)': \(answer)") }
    return answer
  }
}
