import Foundation
import PatchbayHub

/// Figure 7: a press on the flicd simulator -> flic plugin -> hub route -> homebridge-websocket
/// plugin -> the Homebridge simulator prints the setValue it received. Both times are when a
/// line reached the benchmark through the simulator's standard output. The baseline is the
/// same press until the flicd simulator prints that it sent it: the control socket and output
/// pipes alone, without any plugin or the hub.
struct ButtonBenchmark {
  let tools: BenchTools
  let presses: Int

  func run() throws -> (homekit: [UInt64], baseline: [UInt64]) {
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
    var homekit: [UInt64] = []
    var baseline: [UInt64] = []
    for _ in 0..<presses {
      let (flicdMark, homebridgeMark) = (flicd.lineCount, homebridge.lineCount)
      let pressed = monotonicNanos()
      _ = try Self.control(control, "press \(BundledPlugin.buttonAddress) down")
      let (_, sent) = try flicd.waitForLine(containing: "press [", after: flicdMark, within: 30)
      let (_, received) = try homebridge.waitForLine(containing: "setValue bench.On", after: homebridgeMark, within: 30)
      baseline.append(sent - pressed)
      homekit.append(received - pressed)
      _ = try Self.control(control, "press \(BundledPlugin.buttonAddress) up")
      usleep(20_000)
    }
    return (homekit, baseline)
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
