import ArgumentParser
import Foundation
import PatchbayTestSupport

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
    case latency, throughput, memory, bridge, restart, startup, button, callgrind, sandbox, homekit, recorder
    case flicBLE = "flic-ble"
  }

  @Option(help: "Messages per latency figure, over all rounds (plus a warm-up of up to 1000 per round).")
  var messages = 100_000
  @Option(help: "Latency rounds, each alternating the hub with its baselines.") var rounds = 5
  @Option(help: "Messages per throughput flood.") var throughputMessages = 200_000
  @Option(help: "Messages per MQTT bridge figure (latency, and the flood).") var bridgeMessages = 20_000
  @Option(help: "Ping-pong round trips under callgrind (two hops each).") var callgrindMessages = 2_000
  @Option(help: "SIGKILLs in the restart benchmark (each after a healthy run of 1.3 s).") var kills = 20
  @Option(help: "Hub starts per configuration in the start-up benchmark.") var starts = 5
  @Option(help: "Button presses in the button-to-HomeKit benchmark.") var presses = 100
  @Option(help: "Samples per HomeKit latency figure (pair-verify, write, event), each side.") var homekitRuns = 50
  @Option(help: "Values written in the recorder's writes-per-second figure.") var recorderValues = 200_000
  @Option(help: "Seconds the hub's idle CPU time is measured over.") var idleSeconds = 10.0
  @Option(help: "Where to write the JSON results.") var json = "docs/benchmarks.json"
  @Option(help: "The repository (for the C probes' sources).") var sourceRoot = FileManager.default.currentDirectoryPath
  @Option(help: "Work directory (configs, hub logs, probe records); kept afterwards.") var work: String?
  @Option(
    parsing: .upToNextOption,
    help:
      "Only these sections: latency throughput memory bridge restart startup button callgrind sandbox homekit recorder flic-ble."
  )
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
    var goals = GoalInputs()
    goals.mosquittoRSS = broker.flatMap { ProcessStats.rssMiB($0.pid) }
    var subscriber = SubscriberMemory()
    if only.contains(.latency) { subscriber = try latency(tools, broker, report, &goals) }
    goals.subscriberRSS = subscriber.rssMiB
    if only.contains(.throughput) { try throughput(tools, broker, subscriber: subscriber, report, &goals) }
    if only.contains(.memory) { try memory(tools, broker, subscriber: subscriber, report) }
    if only.contains(.bridge) {
      if let broker { try bridge(tools, broker, report) } else { say("9. MQTT bridge: skipped, no mosquitto") }
    }
    if only.contains(.restart) { try restart(tools, report, &goals) }
    if only.contains(.startup) { try startup(tools, report, &goals) }
    if only.contains(.button) { try button(tools, report) }
    if only.contains(.sandbox) { try sandbox(tools, report) }
    if only.contains(.homekit) { homekit(tools, report) }
    if only.contains(.recorder) { try recorder(tools, report) }
    if only.contains(.flicBLE) { try flicBLE(tools, report) }
    if only.contains(.callgrind) {
      if CallgrindBenchmark.isInstalled {
        goals.callgrind = try callgrind(tools, broker, report)
      } else {
        say("8. instructions per hop: skipped, valgrind is missing (scripts/bench installs it)")
      }
    }
    report.add(goals: goals.goals())
    print("")
    print(report.table())
    print("")
    print(report.goalTable())
    try report.write(json: json)
    say("wrote \(json)")
  }

  private func latency(
    _ tools: BenchTools, _ broker: MosquittoBroker?, _ report: BenchReport, _ goals: inout GoalInputs
  ) throws -> SubscriberMemory {
    let latency = LatencyBenchmarks(tools: tools, messages: max(1, messages / rounds))
    var (raw, relay, hop, mqtt): ([UInt64], [UInt64], [UInt64], [UInt64]) = ([], [], [], [])
    var subscriber = SubscriberMemory()
    for round in 1...rounds {
      say(
        "1. and 2. latency, round \(round) of \(rounds): socketpair, C relay, hub, mosquitto (\(latency.total) messages each)"
      )
      raw += try latency.socketpair()
      relay += try latency.relay()
      hop += try latency.hub()
      if let broker {
        let (samples, memory) = try latency.mqtt(broker)
        mqtt += samples
        subscriber = memory
      }
    }
    let rawSummary = LatencySummary(nanoseconds: raw)
    let relaySummary = LatencySummary(nanoseconds: relay)
    let hopSummary = LatencySummary(nanoseconds: hop)
    goals.hopP50 = hopSummary.p50
    goals.relayP50 = relaySummary.p50
    goals.socketpairP50 = rawSummary.p50
    report.add(
      hopSummary.figures("1 hop latency", "plugin -> hub -> plugin", baseline: ("C relay", relaySummary)))
    report.add(
      relaySummary.figures(
        "1 hop latency", "C relay (producer -> relay -> consumer)", baseline: ("socketpair one-way", rawSummary)))
    report.add(
      hopSummary.figures("1 hop latency", "plugin -> hub -> plugin", baseline: ("socketpair one-way", rawSummary)).map {
        var figure = $0
        figure.note = nil
        return figure
      })
    guard broker != nil else { return subscriber }
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
    return subscriber
  }

  private func throughput(
    _ tools: BenchTools, _ broker: MosquittoBroker?, subscriber: SubscriberMemory, _ report: BenchReport,
    _ goals: inout GoalInputs
  ) throws {
    let benchmark = ThroughputBenchmark(tools: tools, messages: throughputMessages)
    say("3. throughput: raw socketpair and C relay baselines, \(throughputMessages) messages")
    let raw = try benchmark.socketpair()
    let relay = try benchmark.relay()
    let mosquitto = try broker.map { broker in
      say("3. CPU per message: mosquitto relaying a flood of \(throughputMessages) (QoS 0)")
      return try benchmark.mosquitto(broker)
    }
    say("3. throughput and 6. memory: one hub, idle for \(idleSeconds) s, then an event and a state flood")
    let brokerRSSIdle = broker.flatMap { ProcessStats.rssMiB($0.pid) }
    let (event, state, memory) = try benchmark.run(idleSeconds: idleSeconds, broker: broker)
    let base = ("socketpair one-way", raw)
    let relayBase = ("C relay", relay.deliveryRate)
    report.add([
      Figure(
        "3 throughput", "event route, delivered", event.deliveryRate, "msg/s", baseline: relayBase,
        note:
          "\(event.received) of \(event.sent) delivered, \(event.drops) dropped (queue full), \(event.waits) back-pressure waits"
      ),
      Figure("3 throughput", "event route, delivered, vs socketpair", event.deliveryRate, "msg/s", baseline: base),
      Figure("3 throughput", "C relay, delivered", relay.deliveryRate, "msg/s", baseline: base),
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
    let brokerCPU = mosquitto.map { ("mosquitto relaying, per message", $0.cpuPerMessage * 1e6) }
    report.add([
      Figure(
        "3 CPU per message", "hub, event flood", event.hubCPUPerMessage * 1e6, "µs", baseline: brokerCPU,
        note: mosquitto.map {
          "utime+stime from /proc/PID/stat over each flood / messages sent; mosquitto: \($0.received) of \($0.sent) delivered, \(Int($0.deliveryRate)) msg/s"
        }),
      Figure("3 CPU per message", "hub, state flood", state.hubCPUPerMessage * 1e6, "µs", baseline: brokerCPU),
      Figure(
        "3 CPU per message", "hub, event flood vs C relay", event.hubCPUPerMessage * 1e6, "µs",
        baseline: ("C relay, per message", relay.cpuPerMessage * 1e6)),
    ])
    goals.eventRate = event.deliveryRate
    goals.socketpairRate = raw
    goals.eventLost = Int(event.sent - event.received)
    goals.hubCPUPerMessage = event.hubCPUPerMessage
    goals.relayCPUPerMessage = relay.cpuPerMessage
    goals.mosquittoCPUPerMessage = mosquitto?.cpuPerMessage
    goals.hubRSS = memory.hubIdleMiB
    goals.hubLargest = memory.hubLargest
    if let brokerRSSIdle { goals.mosquittoRSS = brokerRSSIdle }
    goals.cPluginRSS = memory.pluginsIdleMiB.values.max()
    goals.cPluginLargest = memory.pluginLargest
    let brokerBase = brokerRSSIdle.map { ("mosquitto broker", $0) }
    report.add([
      Figure("6 memory", "hub RSS idle", memory.hubIdleMiB, "MiB", baseline: brokerBase),
      Figure("6 memory", "hub RSS after throughput", memory.hubAfterMiB, "MiB", baseline: brokerBase),
    ])
    for (name, idle) in memory.pluginsIdleMiB.sorted(by: { $0.key < $1.key }) {
      let base = subscriber.rssMiB.map { ("MQTT C subscriber", $0) }
      report.add([
        Figure("6 memory", "plugin \(name) (C) RSS idle", idle, "MiB", baseline: base),
        Figure("6 memory", "plugin \(name) (C) RSS after", memory.pluginsAfterMiB[name] ?? 0, "MiB", baseline: base),
      ])
    }
    report.add([
      Figure(
        "6 idle cost", "hub CPU over \(Int(idleSeconds)) idle s", memory.hubIdleCPUSeconds * 1000, "ms",
        baseline: memory.brokerIdleCPUSeconds.map { ("mosquitto, same seconds", $0 * 1000) },
        note: "4 idle plugin instances (heartbeats)"),
      Figure(
        "6 idle cost", "hub threads run (wake-ups) over \(Int(idleSeconds)) idle s", Double(memory.hubIdleWakeUps), "",
        baseline: memory.brokerIdleWakeUps.map { ("mosquitto, same seconds", Double($0)) },
        note: "times any hub thread was scheduled (schedstat); the old 10 Hz ticker alone was 10 a second"),
    ])
  }

  private func memory(
    _ tools: BenchTools, _ broker: MosquittoBroker?, subscriber: SubscriberMemory, _ report: BenchReport
  ) throws {
    say("6. memory: RSS and PSS of a hub with every bundled plugin, schedule, mqtt and a C plugin")
    let result = try MemoryBenchmark(tools: tools).run(broker: broker)
    let brokerMemory = broker.flatMap { ProcessStats.memory($0.pid) }
    report.add([
      Figure(
        "6 memory, all plugins", "hub RSS", result.hub.rssMiB, "MiB",
        baseline: brokerMemory.map { ("mosquitto RSS", $0.rss) },
        note: "largest mappings: \(result.hub.largest)"),
      Figure(
        "6 memory, all plugins", "hub PSS", result.hub.pssMiB, "MiB",
        baseline: brokerMemory.map { ("mosquitto PSS", $0.pss) }),
    ])
    for plugin in result.plugins {
      report.add([
        Figure(
          "6 memory, all plugins", "\(plugin.plugin) (\(plugin.name)) RSS", plugin.rssMiB, "MiB",
          baseline: subscriber.rssMiB.map { ("MQTT C subscriber RSS", $0) }, note: "largest mappings: \(plugin.largest)"
        ),
        Figure(
          "6 memory, all plugins", "\(plugin.plugin) (\(plugin.name)) PSS", plugin.pssMiB, "MiB",
          baseline: subscriber.pssMiB.map { ("MQTT C subscriber PSS", $0) }),
      ])
    }
    report.add([
      Figure(
        "6 memory, all plugins", "total PSS, hub + \(result.plugins.count) plugin processes", result.totalPSSMiB, "MiB",
        baseline: brokerMemory.map { ("mosquitto PSS", $0.pss) },
        note:
          "RSS summed would be \(String(format: "%.1f", result.hub.rssMiB + result.plugins.reduce(0) { $0 + $1.rssMiB })) MiB"
      )
    ])
  }

  private func bridge(_ tools: BenchTools, _ broker: MosquittoBroker, _ report: BenchReport) throws {
    say(
      "9. MQTT bridge: hub -> mqtt plugin -> mosquitto -> subscriber against libmosquitto, \(bridgeMessages) messages")
    let result = try BridgeBenchmark(tools: tools, messages: bridgeMessages).run(broker: broker)
    let hub = LatencySummary(nanoseconds: result.hub)
    let raw = LatencySummary(nanoseconds: result.raw)
    report.add(
      Array(
        hub.figures(
          "9 MQTT bridge", "plugin -> hub -> mqtt plugin -> mosquitto -> subscriber",
          baseline: ("libmosquitto publisher -> mosquitto -> subscriber", raw)
        ).prefix(2)))
    report.add([
      Figure(
        "9 MQTT bridge", "flood through the mqtt plugin, delivered", result.hubFlood.deliveryRate, "msg/s",
        baseline: ("libmosquitto publisher flood", result.rawFlood.deliveryRate),
        note:
          "QoS 0; \(result.hubFlood.received) of \(result.hubFlood.sent) delivered (raw: \(result.rawFlood.received) of \(result.rawFlood.sent))"
      )
    ])
    if let rss = result.pluginRSSMiB, let pss = result.pluginPSSMiB {
      report.add([
        Figure(
          "9 MQTT bridge", "mqtt plugin process RSS / PSS after", rss, "MiB", baseline: nil,
          note: String(format: "PSS %.2f MiB", pss))
      ])
    }
  }

  private func callgrind(_ tools: BenchTools, _ broker: MosquittoBroker?, _ report: BenchReport) throws
    -> CallgrindBenchmark.Result
  {
    say("8. instructions per hop: \(callgrindMessages) round trips under valgrind --tool=callgrind")
    let started = monotonicNanos()
    let brokerDirectory = broker != nil ? try tools.directory("callgrind-mosquitto") : nil
    let result = try CallgrindBenchmark(tools: tools, messages: callgrindMessages).run(brokerDirectory: brokerDirectory)
    let seconds = Double(monotonicNanos() - started) / 1e9
    let top = result.hubTop.map { "\($0.name) \(String(format: "%.1f", $0.share)) %" }.joined(separator: "; ")
    report.add([
      Figure(
        "8 instructions", "hub, per hop", result.hubPerHop, "Ir", baseline: ("C relay, per hop", result.relayPerHop),
        note:
          "\(callgrindMessages) round trips, user-space instructions only, \(String(format: "%.0f", seconds)) s; hub's top functions (self): \(top)"
      )
    ])
    if let broker = result.brokerPerMessage {
      report.add([
        Figure(
          "8 instructions", "hub per hop vs mosquitto per message", result.hubPerHop, "Ir",
          baseline: ("mosquitto, per relayed message (QoS 0)", broker))
      ])
    }
    // The allocator's calls in the same run (callgrind counts each call): 0 is the goal.
    report.add([
      Figure(
        "8 allocations", "hub, heap allocations per hop", result.hubAllocationsPerHop, "calls",
        baseline: result.brokerAllocationsPerMessage.map { ("mosquitto, per relayed message", $0) },
        note: "malloc, calloc, realloc and the aligned allocators, all of the hub's threads, over the same run")
    ])
    return result
  }

  private func restart(_ tools: BenchTools, _ report: BenchReport, _ goals: inout GoalInputs) throws {
    let benchmark = RestartBenchmark(tools: tools, kills: kills)
    say("4. restart: \(kills) spawns of the plugin host (baseline), \(kills) SIGKILLs each after a healthy run")
    let baseline = LatencySummary(nanoseconds: try benchmark.spawnBaseline())
    let restarts = LatencySummary(nanoseconds: try benchmark.run())
    goals.hostSpawn = baseline.p50 / 1000
    report.add(
      Self.medianAndP99(
        "4 restart", "SIGKILL after a healthy run -> running again", restarts,
        baseline: ("plugin-host spawn -> exit", baseline)))
    say(
      "4. restart back-off: \(RestartBenchmark.maxRestarts + 1) SIGKILLs in quick succession, backoff_initial_ms = \(Int(RestartBenchmark.backoffInitialMs)), max_restarts = \(RestartBenchmark.maxRestarts)"
    )
    let (steps, leftDown) = try benchmark.backoffSchedule()
    for step in steps {
      let chosen = step.chosenMs.map { String(format: "the hub chose %.0f ms (policy ±20 %% jitter)", $0) }
      report.add([
        Figure(
          "4 restart back-off", "crash \(step.crash): SIGKILL -> running again", step.appliedMs, "ms",
          baseline: ("policy delay", step.policyMs), note: chosen)
      ])
    }
    report.add([
      Figure(
        "4 restart back-off", "crash \(RestartBenchmark.maxRestarts + 1): left down (1 = yes)", leftDown ? 1 : 0, "",
        baseline: nil, note: "max_restarts = \(RestartBenchmark.maxRestarts): the instance is failed, not restarted")
    ])
  }

  private func startup(_ tools: BenchTools, _ report: BenchReport, _ goals: inout GoalInputs) throws {
    say("5. start-up: \(starts) starts of an empty hub and of one with every bundled plugin")
    try BenchTools.require(tools.simulator)
    let (bundled, empty, plugins) = try StartupBenchmark(tools: tools, runs: starts).run()
    let bundledSummary = LatencySummary(nanoseconds: bundled)
    let emptySummary = LatencySummary(nanoseconds: empty)
    goals.startupBundled = bundledSummary.p50 / 1000
    goals.startupEmpty = emptySummary.p50 / 1000
    report.add(
      Self.medianAndP99(
        "5 start-up", "patchbay run, \(plugins.joined(separator: " + "))", bundledSummary,
        baseline: ("hub with no instances", emptySummary)))
  }

  /// Figure 9: what the sandbox costs, confined against unconfined in the same run.
  private func sandbox(_ tools: BenchTools, _ report: BenchReport) throws {
    say("9. sandbox: hop latency and start-up, every instance confined against none")
    let latency = LatencyBenchmarks(tools: tools, messages: max(1, messages / rounds))
    var (confined, unconfined): ([UInt64], [UInt64]) = ([], [])
    do {
      for _ in 1...rounds {
        confined += try latency.hub(sandboxed: true)
        unconfined += try latency.hub(sandboxed: false)
      }
      report.add(
        Self.medianAndP99(
          "9 sandbox", "hop, confined", LatencySummary(nanoseconds: confined),
          baseline: ("hop, unconfined", LatencySummary(nanoseconds: unconfined))))
    } catch {
      // The start-up figure does not depend on the hop run.
      say("9. sandbox: no hop figure: \(error)")
    }
    let starts = try StartupBenchmark(tools: tools, runs: starts).sandboxCost()
    report.add(
      Self.medianAndP99(
        "9 sandbox", "start-up, bundled plugins confined", LatencySummary(nanoseconds: starts.confined),
        baseline: ("start-up, unconfined", LatencySummary(nanoseconds: starts.unconfined))))
  }

  /// Figure 11: the history's writes per second, and the hop with the recorder on and off.
  private func recorder(_ tools: BenchTools, _ report: BenchReport) throws {
    say(
      "11. recorder: \(recorderValues) values into the history; the hop with patchbay-web recording every value or none"
    )
    let benchmark = RecorderBenchmark(tools: tools, values: recorderValues)
    let writes = try benchmark.writesPerSecond()
    report.add([
      Figure(
        "11 recorder", "values written per second (queue + writer thread)", writes.recorder, "values/s",
        baseline: ("straight into the store, batches of 1000", writes.direct))
    ])
    let latency = LatencyBenchmarks(tools: tools, messages: max(1, messages / rounds))
    var (on, off): ([UInt64], [UInt64]) = ([], [])
    var (written, dropped) = (0, 0)
    for round in 1...rounds {
      say("11. recorder: hop round \(round) of \(rounds), recording and not")
      let recorded = try benchmark.hop(latency, recording: true)
      on += recorded.samples
      written += recorded.written
      dropped += recorded.dropped
      off += try benchmark.hop(latency, recording: false).samples
    }
    report.add(
      Self.medianAndP99(
        "11 recorder", "hop, patchbay-web recording every value", LatencySummary(nanoseconds: on),
        baseline: ("hop, patchbay-web recording none", LatencySummary(nanoseconds: off))))
    say("11. recorder: during the recorded hops \(written) values written, \(dropped) dropped from the history")
  }

  /// Figure 10: the homekit plugin against a HAP-python bridge, both through aiohomekit. Skipped
  /// (said, not thrown) when the Python peers cannot be installed, and a failure ends only this
  /// section: the other figures of the run still print.
  private func homekit(_ tools: BenchTools, _ report: BenchReport) {
    say("10. HomeKit: aiohomekit against the homekit plugin and a HAP-python 5.0.0 bridge, \(homekitRuns) samples each")
    let controller: PythonEnvironment
    let accessory: PythonEnvironment
    do {
      controller = try PythonEnvironment.prepared(PythonEnvironment.aiohomekit)
      accessory = try PythonEnvironment.prepared(PythonEnvironment.hapPython)
    } catch {
      say(
        "10. HomeKit: skipped, the Python environment with aiohomekit and HAP-python could not be made (PyPI?): \(error)"
      )
      return
    }
    let benchmark = HomeKitBenchmark(
      tools: tools, runs: homekitRuns, script: sourceRoot + "/Sources/Benchmarks/Scripts/homekit_bench.py",
      controllerPython: controller.python, accessoryPython: accessory.python)
    let result: (patchbay: HomeKitBenchmark.Side, hapPython: HomeKitBenchmark.Side, hapPythonFailure: String?)
    do {
      result = try benchmark.run()
    } catch {
      say("10. HomeKit: failed, no figures: \(error)")
      return
    }
    let (patchbay, hap, hapFailure) = result
    let section = "10 HomeKit"
    if let hapFailure {
      report.add([
        Figure(
          section, "HAP-python baseline", 0, "", baseline: nil,
          note: "FAILED, its baselines below are marked failed: \(hapFailure)")
      ])
    }
    report.add(
      Self.medianAndP99(
        section, "connect + pair-verify", LatencySummary(nanoseconds: patchbay.verify),
        baseline: ("HAP-python", LatencySummary(nanoseconds: hap.verify))))
    report.add(
      Self.medianAndP99(
        section, "write -> hub output port", LatencySummary(nanoseconds: patchbay.write),
        baseline: ("HAP-python write -> setter", LatencySummary(nanoseconds: hap.write))))
    report.add(
      Self.medianAndP99(
        section, "write, put -> response at the controller", LatencySummary(nanoseconds: patchbay.writeAnswered),
        baseline: ("HAP-python", LatencySummary(nanoseconds: hap.writeAnswered))))
    report.add(
      Self.medianAndP99(
        section, "hub input port -> event", LatencySummary(nanoseconds: patchbay.event),
        baseline: ("HAP-python set_value -> event", LatencySummary(nanoseconds: hap.event))))
    report.add(
      Self.medianAndP99(
        section, "hub input port -> event", LatencySummary(nanoseconds: patchbay.event),
        baseline: ("HAP-python set_value, pushed at once", LatencySummary(nanoseconds: hap.eventImmediate))
      ).enumerated().map { index, figure in
        var figure = figure
        if index == 0 {
          figure.note = "HAP-python's set_value batches events for 0.5 s; here the value is pushed with immediate=True"
        }
        return figure
      })
    // Derived, not measured: what the hub's path costs besides the HAP server's coalescing window.
    let window = Double(HomeKitBenchmark.coalescingDelayMilliseconds) * 1000
    var withoutWindow = LatencySummary(nanoseconds: patchbay.event)
    withoutWindow.p50 -= window
    withoutWindow.p99 -= window
    report.add(
      Self.medianAndP99(
        section, "hub input port -> event less the 50 ms window", withoutWindow,
        baseline: ("HAP-python set_value, pushed at once", LatencySummary(nanoseconds: hap.eventImmediate))
      ).enumerated().map { index, figure in
        var figure = figure
        if index == 0 {
          figure.note =
            "derived: the measured figure minus Sources/HAP's coalescing delay (HAPServer.coalescingDelay, \(HomeKitBenchmark.coalescingDelayMilliseconds) ms), which every lone change waits"
        }
        return figure
      })
    homekitController(tools, report, against: hap, accessoryPython: accessory.python)
    for count in benchmark.counts {
      guard let ours = patchbay.memory[count] else { continue }
      let theirs = hap.memory[count]
      var figures = [
        Figure(
          section, "homekit plugin host RSS, \(count) accessories", ours.rss, "MiB",
          baseline: theirs.map { ("HAP-python RSS", $0.rss) }, note: "after pairing and one /accessories read"),
        Figure(
          section, "homekit plugin host PSS, \(count) accessories", ours.pss, "MiB",
          baseline: theirs.map { ("HAP-python PSS", $0.pss) }),
      ]
      if theirs == nil {
        for index in figures.indices {
          figures[index].baselineName = "HAP-python FAILED"
          figures[index].baselineFailed = true
        }
      }
      report.add(figures)
    }
  }

  /// Figure 10's controller half: the homekit-controller plugin against the same HAP-python
  /// bridge program, beside aiohomekit's figures of this run (`aiohomekit`).
  private func homekitController(
    _ tools: BenchTools, _ report: BenchReport, against aiohomekit: HomeKitBenchmark.Side, accessoryPython: String
  ) {
    say("10. HomeKit controller: the homekit-controller plugin against HAP-python, \(homekitRuns) samples each")
    let benchmark = HomeKitControllerBenchmark(
      tools: tools, runs: homekitRuns, script: sourceRoot + "/Sources/Benchmarks/Scripts/homekit_bench.py",
      accessoryPython: accessoryPython)
    let result: (write: [UInt64], event: [UInt64])
    do {
      result = try benchmark.run()
    } catch {
      say("10. HomeKit controller: failed, no figures: \(error)")
      return
    }
    let section = "10 HomeKit controller"
    report.add(
      Self.medianAndP99(
        section, "hub input port -> HAP-python setter", LatencySummary(nanoseconds: result.write),
        baseline: ("aiohomekit write -> setter", LatencySummary(nanoseconds: aiohomekit.write))))
    report.add(
      Self.medianAndP99(
        section, "HAP-python set_value, pushed at once -> hub output port", LatencySummary(nanoseconds: result.event),
        baseline: ("-> aiohomekit's event", LatencySummary(nanoseconds: aiohomekit.eventImmediate))))
  }

  private func button(_ tools: BenchTools, _ report: BenchReport) throws {
    say("7. button to HomeKit: \(presses) presses")
    try BenchTools.require(tools.simulator)
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

  private func flicBLE(_ tools: BenchTools, _ report: BenchReport) throws {
    if let reason = FlicBLEPressBenchmark.unavailable(tools) {
      say("12. flic-ble press: skipped, \(reason)")
      return
    }
    say("12. flic-ble press through BlueZ, beside flicd: \(presses) presses")
    let result = try FlicBLEPressBenchmark(tools: tools, presses: presses).run(sourceRoot: sourceRoot)
    report.add(
      Self.medianAndP99(
        "12 flic-ble", "BlueZ notification -> hub port (flic-ble)", LatencySummary(nanoseconds: result.flicBLE),
        baseline: ("flicd sent -> hub port (flic)", LatencySummary(nanoseconds: result.flicd))))
    if let memory = result.memory {
      report.add([
        Figure("12 flic-ble", "flic-ble plugin host RSS, 1 button", memory.rss, "MiB", baseline: nil),
        Figure("12 flic-ble", "flic-ble plugin host PSS, 1 button", memory.pss, "MiB", baseline: nil),
      ])
    }
  }

  /// Median and p99 rows in ms.
  static func medianAndP99(
    _ section: String, _ name: String, _ summary: LatencySummary, baseline: (String, LatencySummary)
  ) -> [Figure] {
    // A baseline without samples failed (said where it failed): no ratio against nothing.
    guard baseline.1.count > 0 else {
      return [
        Figure(section, "\(name) median", summary.p50 / 1000, "ms", baseline: nil, note: "\(summary.count) samples"),
        Figure(section, "\(name) p99", summary.p99 / 1000, "ms", baseline: nil),
      ].map {
        var figure = $0
        figure.baselineName = baseline.0 + " FAILED"
        figure.baselineFailed = true
        return figure
      }
    }
    return [
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
