import ChildProcesses
import Foundation

/// Figures 3 and 6: sustained throughput through one event route and one state route, and
/// the memory and idle cost of the hub that carried them. A source floods 1, 2, ... count as
/// fast as publish() takes them; its sink counts what arrives.
struct ThroughputBenchmark {
  struct Flood {
    var sent: Int64
    var received: Int64
    /// Sent per second, from the source's first to its last publish.
    var publishRate: Double
    /// Received per second, from the first publish to the last arrival.
    var deliveryRate: Double
    var drops: Int
    /// From the source's last publish until the sink had the last value it got: the backlog
    /// an event route works through, or (state) the newest value's lag.
    var lagAfterFlood: Double
    /// The hub's user + system CPU seconds over the flood, per message sent.
    var hubCPUPerMessage: Double
    /// How often the source's publishing had to wait for the consumer (its instance status).
    var waits: Int
  }

  /// A relay's flood (the C relay, or mosquitto relaying a publisher to a subscriber).
  struct RelayFlood {
    var sent: Int
    var received: Int
    /// Received per second, from the first publish to the last arrival.
    var deliveryRate: Double
    /// The relay's CPU seconds per message sent.
    var cpuPerMessage: Double
  }

  struct Memory {
    var hubIdleMiB: Double
    var hubAfterMiB: Double
    var pluginsIdleMiB: [String: Double]
    var pluginsAfterMiB: [String: Double]
    var hubIdleCPUSeconds: Double
    var brokerIdleCPUSeconds: Double?
    /// How often the hub's and mosquitto's threads ran over the idle seconds.
    var hubIdleWakeUps = 0
    var brokerIdleWakeUps: Int?
    /// What the idle RSS is made of (largest mappings) for the hub and a C plugin's host.
    var hubLargest: String
    var pluginLargest: String?
  }

  let tools: BenchTools
  let messages: Int

  /// The baseline: frames of the same size one way through a socketpair, as fast as possible.
  func socketpair() throws -> Double {
    let result = try ChildProcess.runToEnd(tools.socketpairProbe, ["throughput", String(messages)])
    let record = ProbeRecord(text: result.output)
    guard result.status == 0, record["received"] == Int64(messages) else {
      throw BenchError("socketpair-probe throughput failed: \(result.output)")
    }
    return Double(messages) / (Double(record["last_ns"] - record["first_ns"]) / 1e9)
  }

  /// The raw relay: the same frames through producer -> relay -> consumer, and the relay's CPU.
  func relay() throws -> RelayFlood {
    let result = try ChildProcess.runToEnd(tools.relayProbe, ["throughput", String(messages)])
    let record = ProbeRecord(text: result.output)
    guard result.status == 0, record["received"] == Int64(messages) else {
      throw BenchError("relay-probe throughput failed: \(result.output)")
    }
    return RelayFlood(
      sent: messages, received: messages,
      deliveryRate: Double(messages) / (Double(record["last_ns"] - record["first_ns"]) / 1e9),
      cpuPerMessage: Double(record["relay_cpu_ns"]) / 1e9 / Double(messages))
  }

  /// mosquitto relaying a libmosquitto publisher's flood (QoS 0) to a subscriber: its CPU time
  /// per message is the baseline for the hub's.
  func mosquitto(_ broker: MosquittoBroker) throws -> RelayFlood {
    guard let probe = tools.mqttProbe else { throw BenchError("the MQTT probe is not built") }
    let before = ProcessStats.cpuTicksSeconds(broker.pid) ?? 0
    let result = try ChildProcess.runToEnd(probe, ["flood", String(broker.port), String(messages), "0"])
    let after = ProcessStats.cpuTicksSeconds(broker.pid) ?? 0
    let record = ProbeRecord(text: result.output)
    guard result.status == 0, record["received"] > 0 else {
      throw BenchError("mqtt-probe flood failed: \(result.output)")
    }
    return RelayFlood(
      sent: messages, received: Int(record["received"]),
      deliveryRate: Double(record["received"]) / (Double(record["last_ns"] - record["begin_ns"]) / 1e9),
      cpuPerMessage: (after - before) / Double(messages))
  }

  /// Starts one hub with both routes, measures it idle (CPU over `idleSeconds`, next to the
  /// broker's over the same seconds), floods the event route, then the state route, and
  /// measures its memory again.
  func run(idleSeconds: Double, broker: MosquittoBroker?) throws -> (event: Flood, state: Flood, memory: Memory) {
    let directory = try tools.directory("throughput")
    var config = ""
    for kind in ["event", "state"] {
      config += ProbeConfig.instance(
        "\(kind)_src", .source, kind: kind, mode: .flood, count: messages, record: "\(directory)/\(kind)-source")
      config += ProbeConfig.instance(
        "\(kind)_sink", .sink, kind: kind, mode: .flood, count: messages, record: "\(directory)/\(kind)-sink")
      config += ProbeConfig.route("\(kind)_src.value", "\(kind)_sink.value", name: "\(kind)_flood")
    }
    let hub = try HubProcess(tools: tools, directory: directory, config: config)
    defer { hub.stop() }
    let status = try hub.waitUntilRunning()
    let plugins = Dictionary(uniqueKeysWithValues: status.instances.compactMap { i in i.pid.map { (i.name, $0) } })
    usleep(1_000_000)  // let start-up work settle
    let hubIdle = ProcessStats.rssMiB(hub.pid) ?? 0
    let hubLargest = ProcessStats.describe(ProcessStats.largestMappings(hub.pid, count: 4))
    let pluginLargest = plugins["event_sink"].map { ProcessStats.describe(ProcessStats.largestMappings($0, count: 4)) }
    let pluginsIdle = plugins.compactMapValues(ProcessStats.rssMiB)
    let idle = ProcessStats.cpuSeconds(of: [hub.pid] + (broker.map { [$0.pid] } ?? []), over: idleSeconds)
    let hubIdleCPU = idle[hub.pid]?.seconds ?? 0
    let brokerIdleCPU = broker.flatMap { idle[$0.pid]?.seconds }

    let event = try flood("event", hub: hub, directory: directory)
    let state = try flood("state", hub: hub, directory: directory)
    let memory = Memory(
      hubIdleMiB: hubIdle, hubAfterMiB: ProcessStats.rssMiB(hub.pid) ?? 0, pluginsIdleMiB: pluginsIdle,
      pluginsAfterMiB: plugins.compactMapValues(ProcessStats.rssMiB), hubIdleCPUSeconds: hubIdleCPU,
      brokerIdleCPUSeconds: brokerIdleCPU, hubIdleWakeUps: idle[hub.pid]?.wakeUps ?? 0,
      brokerIdleWakeUps: broker.flatMap { idle[$0.pid]?.wakeUps }, hubLargest: hubLargest, pluginLargest: pluginLargest)
    return (event, state, memory)
  }

  private func flood(_ kind: String, hub: HubProcess, directory: String) throws -> Flood {
    let sourceFile = "\(directory)/\(kind)-source"
    let sinkFile = "\(directory)/\(kind)-sink"
    let cpuBefore = ProcessStats.cpuTicksSeconds(hub.pid) ?? 0
    try hub.send("\(kind)_src.go", "trigger")
    try waitFor("the \(kind) source to finish", within: 120 + Double(messages) / 1000, interval: 10_000) {
      FileManager.default.fileExists(atPath: sourceFile)
    }
    // The last value always arrives on a state route (the newest wins) and on an event route
    // unless the queue overflowed; then take what came once the sink's count (written every
    // 100 ms) stands still for a second.
    var previous: Int64 = -1
    var still = 0
    try waitFor("the \(kind) sink to settle", within: 60, interval: 100_000) {
      let record = ProbeRecord(path: sinkFile)
      if record?["last_value"] == Int64(messages) { return true }
      let count = record?["received"] ?? -1
      still = count == previous ? still + 1 : 0
      previous = count
      return still >= 10
    }
    let cpu = (ProcessStats.cpuTicksSeconds(hub.pid) ?? 0) - cpuBefore
    guard let source = ProbeRecord(path: sourceFile) else { throw BenchError("no record from the \(kind) source") }
    let sink = ProbeRecord(path: sinkFile) ?? ProbeRecord(text: "")
    let status = hub.status()
    let drops = status?.routes.reduce(0) { $1.id == "\(kind)_flood" ? $0 + $1.drops : $0 } ?? 0
    let waits = status?.instances.first { $0.name == "\(kind)_src" }?.backPressureWaits ?? 0
    let publishing = Double(source["end_ns"] - source["begin_ns"]) / 1e9
    let delivering = Double(sink["last_ns"] - source["begin_ns"]) / 1e9
    return Flood(
      sent: source["sent"], received: sink["received"], publishRate: Double(source["sent"]) / publishing,
      deliveryRate: delivering > 0 ? Double(sink["received"]) / delivering : 0, drops: drops,
      lagAfterFlood: max(0, Double(sink["last_ns"] - source["end_ns"]) / 1e9),
      hubCPUPerMessage: cpu / Double(max(source["sent"], 1)), waits: waits)
  }
}
