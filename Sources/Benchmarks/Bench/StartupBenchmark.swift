import Foundation

/// Figure 5: `patchbay run` with every bundled plugin (against its simulator) from the spawn
/// until `status` shows every instance running, against the same hub with no instances (until
/// its control socket answers). Median over `runs` starts.
struct StartupBenchmark {
  let tools: BenchTools
  let runs: Int

  /// Starts of the bundled configuration with every instance confined and with none (figure 9).
  func sandboxCost() throws -> (confined: [UInt64], unconfined: [UInt64]) {
    let directory = try tools.directory("startup-sandbox")
    let plugins = BundledPlugin.all
    let simulators = try SimulatorSet(plugins, tools: tools, directory: directory)
    defer { simulators.stop() }
    let config = simulators.config(plugins)
    // Each `[instances.NAME]` gets `[instances.NAME.sandbox] enabled = false`.
    let names = config.split(separator: "\n").compactMap { line -> String? in
      guard line.hasPrefix("[instances."), !line.hasPrefix("[[") else { return nil }
      let name = line.dropFirst("[instances.".count).prefix { $0 != "]" && $0 != "." }
      return String(name)
    }
    let unconfined = config + Set(names).map { "\n[instances.\($0).sandbox]\nenabled = false\n" }.joined()
    var confinedTimes: [UInt64] = []
    var unconfinedTimes: [UInt64] = []
    for run in 0..<runs {
      confinedTimes.append(try timeStart(directory: try tools.directory("startup-sandbox/on-\(run)"), config: config))
      unconfinedTimes.append(
        try timeStart(directory: try tools.directory("startup-sandbox/off-\(run)"), config: unconfined))
    }
    return (confinedTimes, unconfinedTimes)
  }

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
