import Foundation

/// Figure 5: `patchbay run` with every bundled plugin (against its simulator) from the spawn
/// until `status` shows every instance running, against the same hub with no instances (until
/// its control socket answers). Median over `runs` starts.
struct StartupBenchmark {
  let tools: BenchTools
  let runs: Int

  func run() throws -> (bundled: [UInt64], empty: [UInt64], plugins: [String]) {
    let directory = try tools.directory("startup")
    let plugins = BundledPlugin.all
    let simulators = try SimulatorSet(plugins, tools: tools, directory: directory)
    defer { simulators.stop() }
    var bundled: [UInt64] = []
    var empty: [UInt64] = []
    for run in 0..<runs {
      empty.append(try timeStart(directory: try tools.directory("startup/empty-\(run)"), config: ""))
      bundled.append(
        try timeStart(directory: try tools.directory("startup/bundled-\(run)"), config: simulators.config(plugins)))
    }
    return (bundled, empty, plugins.map(\.name))
  }

  private func timeStart(directory: String, config: String) throws -> UInt64 {
    let started = monotonicNanos()
    let hub = try HubProcess(tools: tools, directory: directory, config: config)
    defer { hub.stop() }
    try hub.waitUntilRunning(interval: 1000)
    return monotonicNanos() - started
  }
}
