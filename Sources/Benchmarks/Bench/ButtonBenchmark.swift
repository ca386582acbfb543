import ChildProcesses
import Foundation
import PatchbayHub
import Synchronization

/// Figure 7: a press on the flicd simulator -> flic plugin -> hub route -> homebridge-websocket
/// plugin -> the Homebridge simulator prints the setValue it received. Both times are when a
/// line reached the benchmark through the simulator's standard output. The baseline is the
/// same press until the flicd simulator prints that it sent it: the control socket and output
/// pipes alone, without any plugin or the hub. A `patchbay watch` stream splits the path: the
/// time the hub had the `down` value (the flic side) is reported too.
struct ButtonBenchmark {
  struct Result {
    var homekit: [UInt64] = []
    var hub: [UInt64] = []
    var baseline: [UInt64] = []
  }

  let tools: BenchTools
  let presses: Int

  func run() throws -> Result {
    let directory = try tools.directory("button")
    let plugins = [BundledPlugin.flic, BundledPlugin.homebridge]
    let simulators = try SimulatorSet(plugins, tools: tools, directory: directory)
    defer { simulators.stop() }
    let route = """
      [[routes]]
      from = "flic.button.button"
      filter = ["down"]
      cycle = [true, false]
      to = ["homekit.bench.on"]

      """
    let hub = try HubProcess(tools: tools, directory: directory, config: simulators.config(plugins) + route)
    defer { hub.stop() }
    try hub.waitUntilRunning()
    guard let flicd = simulators.processes["flic"], let homebridge = simulators.processes["homebridge-websocket"],
      let control = simulators.controls["flic"]
    else { throw BenchError("the simulators did not start") }
    _ = try homebridge.waitForLine(containing: "add bench", within: 60)
    _ = try Self.control(control, "wait-channel \(BundledPlugin.buttonAddress) 60")
    let routed = WatchedLines(hub: hub, pattern: "flic.button.button")
    var result = Result()
    for _ in 0..<presses {
      let (flicdMark, homebridgeMark) = (flicd.lineCount, homebridge.lineCount)
      let pressed = monotonicNanos()
      _ = try Self.control(control, "press \(BundledPlugin.buttonAddress) down")
      let sent = try flicd.waitForLine(containing: "press [", after: flicdMark, within: 30).arrival
      let received = try homebridge.waitForLine(containing: "setValue bench.On", after: homebridgeMark, within: 30)
        .arrival
      result.baseline.append(sent - pressed)
      result.homekit.append(received - pressed)
      if let seen = routed.first(containing: "down", after: pressed) { result.hub.append(seen - pressed) }
      _ = try Self.control(control, "press \(BundledPlugin.buttonAddress) up")
      usleep(20_000)
    }
    return result
  }

  /// One line to a simulator's control socket; its one-line answer.
  private static func control(_ path: String, _ line: String) throws -> String {
    let stream = try UnixStream.connect(to: path)
    defer { stream.close() }
    _ = stream.writeLine(line)
    let answer = stream.readLine() ?? ""
    if answer.hasPrefix("error") { throw BenchError("simulator refused '\(line)': \(answer)") }
    return answer
  }
}

/// `patchbay watch PATTERN` on a thread of its own: each line with the time it arrived.
final class WatchedLines: Sendable {
  private let lines = Mutex<[(text: String, at: UInt64)]>([])

  init(hub: HubProcess, pattern: String) {
    let socket = hub.socket
    let thread = Thread { [self] in
      try? ControlClient.watch(pattern: pattern, socket: socket) { line in
        let at = monotonicNanos()
        lines.withLock { $0.append((line, at)) }
      }
    }
    thread.start()
    // The watch is registered before the first press.
    usleep(200_000)
  }

  /// When the first line containing `text` at or after `time` arrived (waiting up to a second).
  func first(containing text: String, after time: UInt64) -> UInt64? {
    var found: UInt64?
    try? waitFor("a watched line with '\(text)'", within: 1) {
      found = lines.withLock { $0.first { $0.at >= time && $0.text.contains(text) }?.at }
      return found != nil
    }
    return found
  }
}
