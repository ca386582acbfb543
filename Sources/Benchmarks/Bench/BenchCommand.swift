import ArgumentParser
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay-bench`: every figure of docs/BENCHMARKS.md, each with its baseline measured in
/// the same run. Run it through scripts/bench (release build, mosquitto installed).
@main
struct BenchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "patchbay-bench",
    abstract: "Measure the hub against same-run baselines; print a table and write JSON.")

  enum Section: String, CaseIterable, ExpressibleByArgument {
    case latency, throughput, restart, startup, button
  }

  @Option(help: "Messages per latency figure, over all rounds (plus a warm-up of up to 1000 per round).")
  var messages = 100_000
  @Option(help: "Latency rounds, each alternating the hub with its baselines.") var rounds = 5
  @Option(help: "Messages per throughput flood.") var throughputMessages = 200_000
  @Option(help: "SIGKILLs in the restart benchmark.") var kills = 50
  @Option(help: "Hub starts per configuration in the start-up benchmark.") var starts = 5
  @Option(help: "Button presses in the button-to-HomeKit benchmark.") var presses = 100
  @Option(help: "Seconds the hub's idle CPU time is measured over.") var idleSeconds = 10.0
  @Option(help: "Where to write the JSON results.") var json = "docs/benchmarks.json"
  @Option(help: "The repository (for the C probes' sources).") var sourceRoot = FileManager.default.currentDirectoryPath
  @Option(help: "Work directory (configs, hub logs, probe records); kept afterwards.") var work: String?
  @Option(parsing: .upToNextOption, help: "Only these sections: latency throughput restart startup button.")
  var only: [Section] = Section.allCases

  func run() throws {
    let workDirectory = work ?? "/tmp/patchbay-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
    let tools = try BenchTools(sourceRoot: sourceRoot, work: workDirectory)
    let report = BenchReport(machine: MachineInfo.current())
    say("patchbay-bench on \(report.machine.summary); work directory \(workDirectory)")
    if tools.mqttProbe == nil || !MosquittoBroker.isInstalled {
      say("mosquitto or libmosquitto-dev is missing: the MQTT figures are skipped (scripts/bench installs them)")
    }
    let broker =
      MosquittoBroker.isInstalled && tools.mqttProbe != nil
      ? try MosquittoBroker(directory: try tools.directory("mosquitto")) : nil
    defer { broker?.stop() }
    var subscriberRSS: Double?
    if only.contains(.latency) { subscriberRSS = try latency(tools, broker, report) }
    if only.contains(.throughput) { try throughput(tools, broker, subscriberRSS: subscriberRSS, report) }
    if only.contains(.restart) { try restart(tools, report) }
    if only.contains(.startup) { try startup(tools, report) }
    if only.contains(.button) { try button(tools, report) }
    print("")
    print(report.table())
    try report.write(json: json)
    say("wrote \(json)")
  }

  private func latency(_ tools: BenchTools, _ broker: MosquittoBroker?, _ report: BenchReport) throws -> Double? {
    let latency = LatencyBenchmarks(tools: tools, messages: max(1, messages / rounds))
    var (raw, hop, mqtt): ([UInt64], [UInt64], [UInt64]) = ([], [], [])
    var subscriberRSS: Double?
    for round in 1...rounds {
      say("1. and 2. latency, round \(round) of \(rounds): socketpair, hub, mosquitto (\(latency.total) messages each)")
      raw += try latency.socketpair()
      hop += try latency.hub()
      if let broker {
        let (samples, rss) = try latency.mqtt(broker)
        mqtt += samples
        subscriberRSS = rss
      }
    }
    let rawSummary = LatencySummary(nanoseconds: raw)
    let hopSummary = LatencySummary(nanoseconds: hop)
    report.add(
      hopSummary.figures("1 hop latency", "plugin -> hub -> plugin", baseline: ("socketpair one-way", rawSummary)))
    guard broker != nil else { return nil }
    let mqttSummary = LatencySummary(nanoseconds: mqtt)
    report.add(
      mqttSummary.figures(
        "2 via MQTT", "publisher -> mosquitto -> subscriber", baseline: ("socketpair one-way", rawSummary)))
    report.add(
      hopSummary.figures("2 via MQTT", "hub hop vs mosquitto", baseline: ("mosquitto", mqttSummary)).map {
        var figure = $0
        figure.note = nil
        return figure
      })
    return subscriberRSS
  }

  private func throughput(
    _ tools: BenchTools, _ broker: MosquittoBroker?, subscriberRSS: Double?, _ report: BenchReport
  ) throws {
    let benchmark = ThroughputBenchmark(tools: tools, messages: throughputMessages)
    say("3. throughput: raw socketpair baseline, \(throughputMessages) messages")
    let raw = try benchmark.socketpair()
    say("3. throughput and 6. memory: one hub, idle for \(idleSeconds) s, then an event and a state flood")
    let brokerRSSIdle = broker.flatMap { ProcessStats.rssMiB($0.pid) }
    let (event, state, memory) = try benchmark.run(idleSeconds: idleSeconds, broker: broker)
    let base = ("socketpair one-way", raw)
    report.add([
      Figure(
        "3 throughput", "event route, delivered", event.deliveryRate, "msg/s", baseline: base,
        note: "\(event.received) of \(event.sent) delivered, \(event.drops) dropped (queue full)"),
      Figure("3 throughput", "state route, published", state.publishRate, "msg/s", baseline: base),
      Figure(
        "3 throughput", "state route, delivered", state.deliveryRate, "msg/s", baseline: base,
        note:
          "\(state.received) of \(state.sent) delivered: \(String(format: "%.1f", 100 * (1 - Double(state.received) / Double(max(state.sent, 1))))) % coalesced"
      ),
      Figure(
        "3 throughput", "state route, newest value's lag after the flood", state.lagAfterFlood * 1000, "ms",
        baseline: ("event route, last value's lag", event.lagAfterFlood * 1000),
        note: "until the sink had its last value; up to a socket's worth of frames is on its way, not coalesced"),
    ])
    let brokerBase = brokerRSSIdle.map { ("mosquitto broker", $0) }
    report.add([
      Figure("6 memory", "hub RSS idle", memory.hubIdleMiB, "MiB", baseline: brokerBase),
      Figure("6 memory", "hub RSS after throughput", memory.hubAfterMiB, "MiB", baseline: brokerBase),
    ])
    for (name, idle) in memory.pluginsIdleMiB.sorted(by: { $0.key < $1.key }) {
      let subscriber = subscriberRSS.map { ("MQTT C subscriber", $0) }
      report.add([
        Figure("6 memory", "plugin \(name) RSS idle", idle, "MiB", baseline: subscriber),
        Figure("6 memory", "plugin \(name) RSS after", memory.pluginsAfterMiB[name] ?? 0, "MiB", baseline: subscriber),
      ])
    }
    report.add([
      Figure(
        "6 idle cost", "hub CPU over \(Int(idleSeconds)) idle s", memory.hubIdleCPUSeconds * 1000, "ms",
        baseline: memory.brokerIdleCPUSeconds.map { ("mosquitto, same seconds", $0 * 1000) },
        note: "4 idle plugin instances (heartbeats)")
    ])
  }

  private func restart(_ tools: BenchTools, _ report: BenchReport) throws {
    let benchmark = RestartBenchmark(tools: tools, kills: kills)
    say("4. restart: \(kills) spawns of the plugin host (baseline), \(kills) SIGKILLs")
    let baseline = LatencySummary(nanoseconds: try benchmark.spawnBaseline())
    let restarts = LatencySummary(nanoseconds: try benchmark.run())
    report.add(
      Self.medianAndP99(
        "4 restart", "SIGKILL -> running again", restarts, baseline: ("plugin-host spawn -> exit", baseline)))
  }

  private func startup(_ tools: BenchTools, _ report: BenchReport) throws {
    say("5. start-up: \(starts) starts of an empty hub and of one with every bundled plugin")
    let (bundled, empty, plugins) = try StartupBenchmark(tools: tools, runs: starts).run()
    report.add(
      Self.medianAndP99(
        "5 start-up", "patchbay run, \(plugins.joined(separator: " + "))", LatencySummary(nanoseconds: bundled),
        baseline: ("hub with no instances", LatencySummary(nanoseconds: empty))))
  }

  private func button(_ tools: BenchTools, _ report: BenchReport) throws {
    say("7. button to HomeKit: \(presses) presses")
    let result = try ButtonBenchmark(tools: tools, presses: presses).run()
    let baseline = ("flicd press -> flicd sent", LatencySummary(nanoseconds: result.baseline))
    report.add(
      Self.medianAndP99(
        "7 button to HomeKit", "flicd press -> Homebridge setValue", LatencySummary(nanoseconds: result.homekit),
        baseline: baseline))
    report.add(
      Self.medianAndP99(
        "7 button to HomeKit", "flicd press -> hub has it (watch)", LatencySummary(nanoseconds: result.hub),
        baseline: baseline))
  }

  /// Median and p99 rows in ms.
  static func medianAndP99(
    _ section: String, _ name: String, _ summary: LatencySummary, baseline: (String, LatencySummary)
  ) -> [Figure] {
    [
      Figure(
        section, "\(name) median", summary.p50 / 1000, "ms", baseline: (baseline.0 + " median", baseline.1.p50 / 1000),
        note: "\(summary.count) samples"),
      Figure(section, "\(name) p99", summary.p99 / 1000, "ms", baseline: (baseline.0 + " p99", baseline.1.p99 / 1000)),
    ]
  }

  private func say(_ line: String) {
    print(line)
    fflush(nil)
  }
}
