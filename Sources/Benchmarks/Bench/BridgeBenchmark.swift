import ChildProcesses
import Foundation

/// Figure 9 (issue 14): a value leaving the hub for MQTT. bench-probe -> hub -> mqtt plugin
/// instance -> mosquitto -> a libmosquitto C subscriber, against a libmosquitto publisher ->
/// mosquitto -> the same subscriber, in the same run, on the run's broker. QoS 0 on both sides:
/// with QoS 1 a ping-pong waits for Nagle's algorithm and delayed acknowledgements (200 round
/// trips of the raw probe took 17.6 s here; 33 ms with TCP_NODELAY on the clients and
/// `set_tcp_nodelay true` on the broker, neither alone helps), which would measure the kernel's
/// timers, not the bridge.
struct BridgeBenchmark {
  struct Result {
    var hub: [UInt64]
    var raw: [UInt64]
    var hubFlood: ThroughputBenchmark.RelayFlood
    var rawFlood: ThroughputBenchmark.RelayFlood
    /// The mqtt plugin process's memory after both.
    var pluginRSSMiB: Double?
    var pluginPSSMiB: Double?
  }

  let tools: BenchTools
  let messages: Int
  var warmup: Int { min(1000, messages / 10) }
  var total: Int { messages + warmup }

  func run(broker: MosquittoBroker) throws -> Result {
    guard let probe = tools.mqttProbe else { throw BenchError("the MQTT probe is not built") }
    let directory = try tools.directory("bridge")
    let port = String(broker.port)

    // The raw side first (the hub is not running yet, so it takes nothing from the machine).
    let rawFile = directory + "/raw-latencies"
    let raw = try ChildProcess.runToEnd(probe, [port, String(total), rawFile, "0"])
    guard raw.status == 0 else { throw BenchError("mqtt-probe failed: \(raw.output)") }
    let rawSamples = try LatencySummary.load(rawFile, droppingFirst: warmup)
    let rawFlood = try ThroughputBenchmark(tools: tools, messages: messages).mosquitto(broker)

    let config =
      ProbeConfig.instance("ping", .source, count: total, record: directory + "/ping-source")
      + ProbeConfig.instance("flood", .source, mode: .flood, count: messages, record: directory + "/flood-source")
        + """
        [instances.mqtt]
        plugin = "mqtt"
        host = "127.0.0.1"
        port = \(broker.port)
        [[instances.mqtt.topics]]
        name = "value"
        type = "integer"
        kind = "event"
        publish = "bench/value"
        qos = 0
        [[instances.mqtt.topics]]
        name = "echo"
        type = "integer"
        kind = "event"
        subscribe = "bench/echo"
        qos = 0

        """
      + ProbeConfig.route("ping.value", "mqtt.value") + ProbeConfig.route("flood.value", "mqtt.value")
      + ProbeConfig.route("mqtt.echo", "ping.echo")
    let hub = try HubProcess(tools: tools, directory: directory, config: config)
    defer { hub.stop() }
    try hub.waitUntilRunning()
    try waitFor("the mqtt instance to connect to the broker", within: 60, interval: 10_000) {
      hub.status()?.instances.first { $0.name == "mqtt" }?.peer == "connected"
    }

    // Latency: the C subscriber records and echoes; the echo comes back through the plugin.
    let hubFile = directory + "/hub-latencies"
    let subscriber = try ChildProcess(probe, ["subscriber", port, String(total), hubFile, "0"])
    defer { _ = try? subscriber.terminate(within: 10) }
    _ = try subscriber.waitForLine(containing: "subscribed", within: 60)
    try hub.send("ping.go", "trigger")
    try waitFor("\(total) messages through hub and broker", within: 120 + Double(total) / 500, interval: 20_000) {
      FileManager.default.fileExists(atPath: hubFile)
    }
    let hubSamples = try LatencySummary.load(hubFile, droppingFirst: warmup)

    // Throughput: the source floods the mqtt instance's input; the subscriber counts.
    let counter = try ChildProcess(probe, ["flood-sub", port, String(messages), "0"])
    defer { _ = try? counter.terminate(within: 10) }
    _ = try counter.waitForLine(containing: "subscribed", within: 60)
    try hub.send("flood.go", "trigger")
    let line = try counter.waitForLine(containing: "received", within: 120 + Double(messages) / 500).text
    let counted = ProbeRecord(text: line)
    try waitFor("the flood source's record", within: 60, interval: 10_000) {
      FileManager.default.fileExists(atPath: directory + "/flood-source")
    }
    guard let source = ProbeRecord(path: directory + "/flood-source") else {
      throw BenchError("no record from the flood source")
    }
    let hubFlood = ThroughputBenchmark.RelayFlood(
      sent: Int(source["sent"]), received: Int(counted["received"]),
      deliveryRate: Double(counted["received"]) / (Double(counted["last_ns"] - source["begin_ns"]) / 1e9),
      cpuPerMessage: 0)
    let plugin = hub.pid(of: "mqtt").flatMap(ProcessStats.memory)
    return Result(
      hub: hubSamples, raw: rawSamples, hubFlood: hubFlood, rawFlood: rawFlood, pluginRSSMiB: plugin?.rss,
      pluginPSSMiB: plugin?.pss)
  }
}
