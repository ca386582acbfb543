import ChildProcesses
import Foundation

/// Figure 8: instructions per hop, counted by valgrind's callgrind on a fixed ping-pong run.
/// Unlike a time, an instruction count hardly moves with the load of a shared machine, so it
/// compares between runs. Only user-space instructions count (the kernel's socket work does
/// not), for the hub and for its baselines alike: the C relay and the mosquitto broker.
struct CallgrindBenchmark {
  struct Result {
    var hubPerHop: Double
    var relayPerHop: Double
    var brokerPerMessage: Double?
    /// Calls of the C heap allocator (malloc and its siblings) in the hub over the measured
    /// run, all threads, divided by the hops: what a hop allocates (the heartbeats and the
    /// ticker of the same seconds are in it too, a little).
    var hubAllocationsPerHop: Double
    /// The same for mosquitto, per relayed message (nil: not measured).
    var brokerAllocationsPerMessage: Double?
    /// The hub's functions with the most instructions of their own (self cost), with the share.
    var hubTop: [(name: String, share: Double)]
  }

  let tools: BenchTools
  /// Round trips: each is two hops through the hub (value and echo).
  let messages: Int

  static let valgrind = "/usr/bin/valgrind"
  static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: valgrind) }

  func run(brokerDirectory: String?) throws -> Result {
    let directory = try tools.directory("callgrind")
    let relay = try relayPerHop(directory)
    let hub = try hubPerHop(directory)
    let broker = try brokerDirectory.map { try brokerPerMessage(directory: $0) }
    return Result(
      hubPerHop: hub.instructions, relayPerHop: relay, brokerPerMessage: broker?.instructions,
      hubAllocationsPerHop: hub.allocations, brokerAllocationsPerMessage: broker?.allocations, hubTop: hub.top)
  }

  /// The hub (a copy without DWARF, which valgrind 3.19 cannot read, and the shim for its other
  /// troubles: Probes/callgrind-shim.c) with the latency benchmark's two probes; counters zeroed
  /// once every instance runs, dumped once the sink has every message.
  private func hubPerHop(_ directory: String) throws -> (
    instructions: Double, top: [(name: String, share: Double)], allocations: Double
  ) {
    let hubCopy = directory + "/patchbay"
    try Self.check(ChildProcess.runToEnd("/usr/bin/objcopy", ["--strip-debug", tools.patchbay, hubCopy]), "objcopy")
    // A warm-up pair runs first, so that what happens once (caches, lazy metadata, the first
    // allocations) is not counted; the measured pair's run is then the counters' only work.
    let file = directory + "/latencies"
    let warmed = directory + "/warm-latencies"
    let warmup = max(100, messages / 4)
    let config =
      ProbeConfig.instance("warm_src", .source, count: warmup, record: directory + "/warm-source")
      + ProbeConfig.instance("warm_sink", .sink, count: warmup, record: warmed)
      + ProbeConfig.route("warm_src.value", "warm_sink.value") + ProbeConfig.route("warm_sink.echo", "warm_src.echo")
      + ProbeConfig.instance("src", .source, count: messages, record: directory + "/source")
      + ProbeConfig.instance("sink", .sink, count: messages, record: file)
      + ProbeConfig.route("src.value", "sink.value") + ProbeConfig.route("sink.echo", "src.echo")
    let output = directory + "/hub.callgrind"
    let hub = try HubProcess(
      tools: tools, directory: directory, config: config,
      wrapper: [Self.valgrind, "--tool=callgrind", "--callgrind-out-file=\(output)"], hub: hubCopy,
      environment: ["LD_PRELOAD": tools.callgrindShim, "PATCHBAY_PLUGIN_HOST": tools.pluginHost])
    defer { hub.stop() }
    try hub.waitUntilRunning(within: 300, interval: 100_000)
    try hub.send("warm_src.go", "trigger")
    try waitFor("\(warmup) warm-up messages under callgrind", within: 600, interval: 100_000) {
      FileManager.default.fileExists(atPath: warmed)
    }
    try Self.check(Self.control("-z", hub.pid), "callgrind_control -z")
    try hub.send("src.go", "trigger")
    try waitFor("\(messages) messages through the hub under callgrind", within: 600, interval: 100_000) {
      FileManager.default.fileExists(atPath: file)
    }
    try Self.check(Self.control("-d", hub.pid), "callgrind_control -d")
    let profile = try Self.dump(output + ".1")
    let hops = Double(2 * messages)
    return (Double(profile.total ?? 0) / hops, profile.top(6), Double(profile.heapAllocations) / hops)
  }

  /// The C relay's own function only (`--toggle-collect`): what it executes per frame.
  private func relayPerHop(_ directory: String) throws -> Double {
    let result = try ChildProcess.runToEnd(
      Self.valgrind,
      [
        "--tool=callgrind", "--toggle-collect=relay", "--callgrind-out-file=\(directory)/relay.%p",
        tools.relayProbe, "latency", String(messages), directory + "/relay-latencies",
      ])
    try Self.check(result, "relay-probe under callgrind")
    let pid = ProbeRecord(text: result.output)["relay_pid"]
    guard let total = CallgrindProfile(path: "\(directory)/relay.\(pid)")?.total else {
      throw BenchError("no callgrind output for the relay (pid \(pid))")
    }
    return Double(total) / Double(2 * messages)
  }

  /// A second mosquitto, under callgrind, relaying the QoS 0 ping-pong both ways (the latency
  /// benchmark's libmosquitto probe).
  private func brokerPerMessage(directory: String) throws -> (instructions: Double, allocations: Double) {
    guard let probe = tools.mqttProbe else { throw BenchError("the MQTT probe is not built") }
    let output = directory + "/mosquitto.callgrind"
    let broker = try MosquittoBroker(
      directory: directory, wrapper: [Self.valgrind, "--tool=callgrind", "--callgrind-out-file=\(output)"])
    defer { broker.stop() }
    // Each probe run connects and subscribes anew: a run of N and one of 2N round trips, each
    // counted alone; their difference is N round trips without the connections. A first,
    // uncounted run warms the broker up: while valgrind translates its code for the first time
    // it is slow, and the subscriber's "ready" messages (every 10 ms until the first ping) pile up.
    try Self.check(
      ChildProcess.runToEnd(
        probe, [String(broker.port), String(max(100, messages / 4)), directory + "/mqtt-latencies"]),
      "mqtt-probe")
    var totals: [Double] = []
    var allocations: [Double] = []
    for (dump, count) in [(1, messages), (2, 2 * messages)] {
      try Self.check(Self.control("-z", broker.pid), "callgrind_control -z")
      try Self.check(
        ChildProcess.runToEnd(probe, [String(broker.port), String(count), directory + "/mqtt-latencies"]), "mqtt-probe")
      try Self.check(Self.control("-d", broker.pid), "callgrind_control -d")
      let profile = try Self.dump(output + ".\(dump)")
      totals.append(Double(profile.total ?? 0))
      allocations.append(Double(profile.heapAllocations))
    }
    let relayed = Double(2 * messages)
    return ((totals[1] - totals[0]) / relayed, (allocations[1] - allocations[0]) / relayed)
  }

  /// `callgrind_control -z` (zero the counters) or `-d` (dump them), bounded in time: it talks
  /// to valgrind's gdbserver, which a process of another user does not answer.
  private static func control(_ option: String, _ pid: Int32) throws -> (status: Int32, output: String) {
    try ChildProcess.runToEnd("/usr/bin/timeout", ["60", "/usr/bin/callgrind_control", option, String(pid)])
  }

  /// The dump callgrind_control asked for, once valgrind has written all of it.
  private static func dump(_ path: String) throws -> CallgrindProfile {
    var profile: CallgrindProfile?
    try waitFor("callgrind's dump \(path)", within: 60, interval: 100_000) {
      profile = CallgrindProfile(path: path)
      return profile?.total != nil
    }
    return profile!
  }

  private static func check(_ result: (status: Int32, output: String), _ what: String) throws {
    guard result.status == 0 else { throw BenchError("\(what) failed: \(result.output)") }
  }
}
