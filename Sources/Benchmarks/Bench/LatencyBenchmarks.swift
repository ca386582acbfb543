import ChildProcesses
import Foundation

/// Figures 1 and 2: one-way latency of one message, ping-pong style (each sent when the
/// previous one's echo is back, so every sample is an unloaded hop). The first `warmup`
/// samples of each run are dropped. A run is one round of `messages`; the command takes
/// several rounds, alternating the hub with its baselines, so that all of them see the same
/// load on a shared machine.
struct LatencyBenchmarks {
  let tools: BenchTools
  let messages: Int
  var warmup: Int { min(1000, messages / 10) }
  var total: Int { messages + warmup }
  /// Generous: a loaded 2-core machine can be slow, never this slow.
  var deadline: Double { 120 + Double(total) / 1000 }

  /// The baseline: two processes on a SOCK_SEQPACKET socketpair, no hub.
  func socketpair() throws -> [UInt64] {
    let file = try tools.directory("socketpair-latency") + "/latencies"
    let result = try ChildProcess.runToEnd(tools.socketpairProbe, ["latency", String(total), file])
    guard result.status == 0 else { throw BenchError("socketpair-probe failed: \(result.output)") }
    return try LatencySummary.load(file, droppingFirst: warmup)
  }

  /// The raw relay baseline: producer -> relay process -> consumer over two socketpairs, the
  /// same shape as a hop through the hub with nothing but the sockets and a poll loop.
  func relay() throws -> [UInt64] {
    let file = try tools.directory("relay-latency") + "/latencies"
    let result = try ChildProcess.runToEnd(tools.relayProbe, ["latency", String(total), file])
    guard result.status == 0 else { throw BenchError("relay-probe failed: \(result.output)") }
    return try LatencySummary.load(file, droppingFirst: warmup)
  }

  /// Plugin output -> hub -> plugin input: two probe instances in their own plugin hosts under
  /// `patchbay run`, the echo routed back the same way.
  /// `sandboxed: false`: both probes unconfined (the sandbox's cost, figure 9).
  func hub(sandboxed: Bool = true) throws -> [UInt64] {
    let directory = try tools.directory(sandboxed ? "hop-latency" : "hop-latency-unconfined")
    let file = directory + "/latencies"
    let config =
      ProbeConfig.instance("src", .source, count: total, record: directory + "/source", sandboxed: sandboxed)
      + ProbeConfig.instance("sink", .sink, count: total, record: file, sandboxed: sandboxed)
      + ProbeConfig.route("src.value", "sink.value") + ProbeConfig.route("sink.echo", "src.echo")
    let hub = try HubProcess(tools: tools, directory: directory, config: config)
    defer { hub.stop() }
    try hub.waitUntilRunning()
    try hub.send("src.go", "trigger")
    try waitFor("\(total) messages through the hub", within: deadline, interval: 20_000) {
      FileManager.default.fileExists(atPath: file)
    }
    return try LatencySummary.load(file, droppingFirst: warmup)
  }

  /// Publisher -> mosquitto -> subscriber on loopback, QoS 0, by the libmosquitto probe.
  /// Returns the subscriber process's resident and proportional memory too (a baseline for a
  /// plugin's).
  func mqtt(_ broker: MosquittoBroker) throws -> (samples: [UInt64], subscriber: SubscriberMemory) {
    guard let probe = tools.mqttProbe else {
      throw BenchError("the MQTT probe is not built (libmosquitto-dev missing)")
    }
    let file = try tools.directory("mqtt-latency") + "/latencies"
    let result = try ChildProcess.runToEnd(probe, [String(broker.port), String(total), file])
    guard result.status == 0 else { throw BenchError("mqtt-probe failed: \(result.output)") }
    let record = ProbeRecord(text: result.output)
    let memory = SubscriberMemory(
      rssMiB: record.fields["rss_kb"].map { Double($0) / 1024 },
      pssMiB: record.fields["pss_kb"].map { Double($0) / 1024 })
    return (try LatencySummary.load(file, droppingFirst: warmup), memory)
  }
}
