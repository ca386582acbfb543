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
    let (hub, top) = try hubPerHop(directory)
    let broker = try brokerDirectory.map { try brokerPerMessage(directory: $0) }
    return Result(hubPerHop: hub, relayPerHop: relay, brokerPerMessage: broker, hubTop: top)
  }

  /// The hub (a copy without DWARF, which valgrind 3.19 cannot read, and the shim for its other
  /// troubles: Probes/callgrind-shim.c) with the latency benchmark's two probes; counters zeroed
  /// once every instance runs, dumped once the sink has every message.
  private func hubPerHop(_ directory: String) throws -> (Double, [(String, Double)]) {
    let hubCopy = directory + "/patchbay"
    try Self.check(Subprocess.run("/usr/bin/objcopy", ["--strip-debug", tools.patchbay, hubCopy]), "objcopy")
    let file = directory + "/latencies"
    let config =
      ProbeConfig.instance("src", .source, count: messages, record: directory + "/source")
      + ProbeConfig.instance("sink", .sink, count: messages, record: file)
      + ProbeConfig.route("src.value", "sink.value") + ProbeConfig.route("sink.echo", "src.echo")
    let output = directory + "/hub.callgrind"
    let hub = try HubProcess(
      tools: tools, directory: directory, config: config,
      wrapper: [Self.valgrind, "--tool=callgrind", "--callgrind-out-file=\(output)"], hub: hubCopy,
      environment: ["LD_PRELOAD": tools.callgrindShim, "PATCHBAY_PLUGIN_HOST": tools.pluginHost])
    defer { hub.stop() }
    try hub.waitUntilRunning(within: 300, interval: 100_000)
    try Self.check(Subprocess.run("/usr/bin/callgrind_control", ["-z", String(hub.pid)]), "callgrind_control -z")
    try hub.send("src.go", "trigger")
    try waitFor("\(messages) messages through the hub under callgrind", within: 600, interval: 100_000) {
      FileManager.default.fileExists(atPath: file)
    }
    try Self.check(Subprocess.run("/usr/bin/callgrind_control", ["-d", String(hub.pid)]), "callgrind_control -d")
    let dump = output + ".1"
    try waitFor("callgrind's dump \(dump)", within: 60, interval: 100_000) { Self.total(dump) != nil }
    return (Double(Self.total(dump)!) / Double(2 * messages), Self.top(dump))
  }

  /// The C relay's own function only (`--toggle-collect`): what it executes per frame.
  private func relayPerHop(_ directory: String) throws -> Double {
    let result = try Subprocess.run(
      Self.valgrind,
      [
        "--tool=callgrind", "--toggle-collect=relay", "--callgrind-out-file=\(directory)/relay.%p",
        tools.relayProbe, "latency", String(messages), directory + "/relay-latencies",
      ])
    try Self.check(result, "relay-probe under callgrind")
    let pid = ProbeRecord(text: result.output)["relay_pid"]
    guard let total = Self.total("\(directory)/relay.\(pid)") else {
      throw BenchError("no callgrind output for the relay (pid \(pid))")
    }
    return Double(total) / Double(2 * messages)
  }

  /// A second mosquitto, under callgrind, relaying the QoS 0 ping-pong both ways.
  private func brokerPerMessage(directory: String) throws -> Double {
    guard let probe = tools.mqttProbe else { throw BenchError("the MQTT probe is not built") }
    let output = directory + "/mosquitto.callgrind"
    let broker = try MosquittoBroker(
      directory: directory, wrapper: [Self.valgrind, "--tool=callgrind", "--callgrind-out-file=\(output)"])
    defer { broker.stop() }
    try Self.check(Subprocess.run("/usr/bin/callgrind_control", ["-z", String(broker.pid)]), "callgrind_control -z")
    try Self.check(
      Subprocess.run(probe, [String(broker.port), String(messages), directory + "/mqtt-latencies"]), "mqtt-probe")
    try Self.check(Subprocess.run("/usr/bin/callgrind_control", ["-d", String(broker.pid)]), "callgrind_control -d")
    let dump = output + ".1"
    try waitFor("callgrind's dump \(dump)", within: 60, interval: 100_000) { Self.total(dump) != nil }
    return Double(Self.total(dump)!) / Double(2 * messages)
  }

  private static func check(_ result: (status: Int32, output: String), _ what: String) throws {
    guard result.status == 0 else { throw BenchError("\(what) failed: \(result.output)") }
  }

  /// The `totals:` line of a callgrind output file (instructions, Ir).
  static func total(_ path: String) -> UInt64? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("totals:") {
      return line.split(separator: " ").dropFirst().first.flatMap { UInt64($0) }
    }
    return nil
  }

  /// The top functions by self cost, from callgrind_annotate, demangled where swift-demangle is
  /// at hand: where the hub's instructions go.
  static func top(_ path: String, count: Int = 6) -> [(String, Double)] {
    guard let annotated = try? Subprocess.run("/usr/bin/callgrind_annotate", ["--inclusive=no", path]) else {
      return []
    }
    // Lines like "1,234,567 (12.34%)  ???:$sSymbol [/path/lib.so]".
    var rows: [(String, Double)] = []
    for line in annotated.output.split(separator: "\n") {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      guard let open = trimmed.firstIndex(of: "("), let percent = trimmed.firstIndex(of: "%"), open < percent,
        let share = Double(trimmed[trimmed.index(after: open)..<percent]),
        let colon = trimmed.range(of: ":", range: percent..<trimmed.endIndex)
      else { continue }
      var name = String(trimmed[colon.upperBound...])
      if let library = name.range(of: " [", options: .backwards) {
        name =
          String(name[..<library.lowerBound]) + " ("
          + (name[library.upperBound...].split(separator: "/").last.map {
            String($0.dropLast())
          } ?? "") + ")"
      }
      if name.hasPrefix("PROGRAM TOTALS") || trimmed.contains("PROGRAM TOTALS") { continue }
      rows.append((name, share))
      if rows.count == count { break }
    }
    return demangled(rows)
  }

  private static func demangled(_ rows: [(String, Double)]) -> [(String, Double)] {
    let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
    guard
      let demangler = (paths + ["/opt/swift/usr/bin"]).map({ $0 + "/swift-demangle" }).first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
      })
    else { return rows }
    return rows.map { name, share in
      let symbol = String(name.prefix { $0 != " " })
      guard symbol.hasPrefix("$s"),
        let result = try? Subprocess.run(demangler, ["--simplified", "--compact", symbol]), result.status == 0
      else { return (name, share) }
      let readable = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
      return (String(readable.prefix(90)) + name.dropFirst(symbol.count), share)
    }
  }
}
