import ChildProcesses
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Figure 10 (issue 31): the `homekit` plugin in a real hub against a HAP-python 5.0.0 bridge
/// serving the same accessories, both driven by aiohomekit 4.0.1 (Sources/Benchmarks/Scripts/
/// homekit_bench.py, both roles), in the same run:
/// - connect + pair-verify on a new connection;
/// - a controller's write of a switch's On -> the hub's output port (a bench-probe sink's receive
///   time), against the write -> HAP-python's setter callback;
/// - a hub input port (a bench-probe source's publish time) -> the event at the controller,
///   against HAP-python's set_value -> the event (its own 0.5 s coalescing, and pushed at once);
/// - RSS and PSS of the homekit plugin host and of the HAP-python process, after pairing and one
///   /accessories read, with 10 and 100 accessories.
/// Every time is CLOCK_MONOTONIC (Python's time.monotonic_ns() is the same clock).
struct HomeKitBenchmark {
  struct Side {
    var verify: [UInt64] = []
    var write: [UInt64] = []
    /// The put's round trip at the controller: request until the accessory's response.
    var writeAnswered: [UInt64] = []
    var event: [UInt64] = []
    /// HAP-python only: set_value, then the event pushed without its coalescing window.
    var eventImmediate: [UInt64] = []
    /// (RSS, PSS) in MiB by accessory count.
    var memory: [Int: (rss: Double, pss: Double)] = [:]
  }

  static let setupCode = "031-45-154"
  /// Sources/HAP's HAPServer.coalescingDelay: a hub-side change waits this long for others
  /// before its EVENT goes out (HAP-python's own window is 500 ms).
  static let coalescingDelayMilliseconds = 50

  let tools: BenchTools
  /// Samples per latency figure.
  let runs: Int
  let script: String
  /// aiohomekit's and HAP-python's interpreters (cached virtual environments).
  let controllerPython: String
  let accessoryPython: String
  /// The accessory counts memory is measured with; latencies are measured with the first.
  var counts = [10, 100]

  /// The baseline's failure does not cost the hub's figures: `hapPythonFailure` says why its
  /// side has none (the report marks those baselines failed).
  func run() throws -> (patchbay: Side, hapPython: Side, hapPythonFailure: String?) {
    var patchbay = Side()
    var hapPython = Side()
    var hapPythonFailure: String?
    for (index, count) in counts.enumerated() {
      try measurePatchbay(count: count, latencies: index == 0, into: &patchbay)
      guard hapPythonFailure == nil else { continue }
      do {
        try measureHAPPythonRetryingSRP(count: count, latencies: index == 0, into: &hapPython)
      } catch {
        hapPythonFailure = "\(error)"
        print("10. HomeKit: the HAP-python baseline failed (\(count) accessories): \(error)")
      }
    }
    return (patchbay, hapPython, hapPythonFailure)
  }

  /// HAP-python 5.0.0's SRP (pyhap/hsrp.py) hashes B, S and K without padding them: a
  /// pair-setup where one starts with a zero byte (3 in 256) fails at M4 with
  /// AuthenticationError though the code is right (Scripts/hap_srp_padding.py counts it).
  /// Only that failure of the baseline side is retried, with a new accessory and controller.
  static let srpAttempts = 3

  private func measureHAPPythonRetryingSRP(count: Int, latencies: Bool, into side: inout Side) throws {
    for attempt in 1...Self.srpAttempts {
      do {
        try measureHAPPython(count: count, latencies: latencies, attempt: attempt, into: &side)
        return
      } catch let error as HAPPythonPairingFailed where attempt < Self.srpAttempts {
        print(
          "10. HomeKit: HAP-python's pair-setup failed at M4 (\(error.message)): its SRP does not pad B/S/K, about 1.2 % of pairings; retrying the HAP-python side only (attempt \(attempt + 1) of \(Self.srpAttempts))"
        )
        side = Side(memory: side.memory)
      }
    }
  }

  /// Pair-setup with HAP-python ended in AuthenticationError (see `measureHAPPythonRetryingSRP`).
  struct HAPPythonPairingFailed: Error, CustomStringConvertible {
    var message: String
    var description: String { "HAP-python pair-setup: \(message)" }
  }

  /// The accessories of both servers (homekit_bench.py's accessory_names() names the same).
  static func accessories(_ count: Int) -> [(name: String, service: String)] {
    let fixed = [("Write", "switch"), ("Event", "switch")]
    let lamps = count > 2 ? (3...count).map { ("Lamp \($0)", $0 % 2 == 1 ? "lightbulb" : "switch") } : []
    return Array((fixed + lamps).prefix(count))
  }

  private func measurePatchbay(count: Int, latencies: Bool, into side: inout Side) throws {
    let directory = try tools.directory("homekit-patchbay-\(count)")
    let port = MosquittoBroker.freePort()
    var config = """
      [instances.homekit]
      plugin = "homekit"
      name = "patchbay-bench"
      port = \(port)
      setup_code = "\(Self.setupCode)"

      """
    for (name, service) in Self.accessories(count) {
      config += """
        [[instances.homekit.accessories]]
        name = "\(name)"
        service = "\(service)"

        """
    }
    let sinkRecord = directory + "/write-stamps"
    let sourceRecord = directory + "/event-stamps"
    if latencies {
      config +=
        ProbeConfig.instance(
          "sink", .sink, kind: "state", mode: .stamp, count: runs, record: sinkRecord, extra: "value_type = \"bool\"")
        + ProbeConfig.instance(
          "src", .source, kind: "state", mode: .stamp, count: runs, record: sourceRecord,
          extra: "value_type = \"bool\"")
        + ProbeConfig.route("homekit.write.on.set", "sink.value") + ProbeConfig.route("src.value", "homekit.event.on")
    }
    let hub = try HubProcess(tools: tools, directory: directory, config: config)
    defer { hub.stop() }
    try hub.waitUntilRunning()
    let controller = try HomeKitBenchController(
      python: controllerPython, script: script, port: port, log: directory + "/controller.log")
    try controller.pair(code: Self.setupCode)
    let listed = try controller.accessories()
    guard let pid = hub.pid(of: "homekit"), let memory = ProcessStats.memory(pid) else {
      throw BenchError("no homekit plugin host to measure; see \(directory)/hub.log")
    }
    side.memory[count] = memory
    guard latencies else { return }
    guard let write = listed.on["Write"], let event = listed.on["Event"] else {
      throw BenchError("the bridge lists no Write or Event switch: \(listed)")
    }
    side.verify = try controller.verify(runs: runs)

    var starts: [UInt64] = []
    for index in 0..<runs {
      let times = try controller.write(write, index % 2 == 0)
      starts.append(times.start)
      side.writeAnswered += try Self.differences([times.answered], [times.start], "write response")
      // Lets the sink have each value before the next write (a state route keeps only the newest).
      usleep(10_000)
    }
    try waitFor("\(runs) writes at the hub's sink", within: 60, interval: 10_000) {
      FileManager.default.fileExists(atPath: sinkRecord)
    }
    side.write = try Self.differences(try LatencySummary.load(sinkRecord, droppingFirst: 0), starts, "write")

    try controller.subscribe(event)
    var arrivals: [UInt64] = []
    for _ in 0..<runs {
      let mark = controller.process.lineCount
      try hub.send("src.go", "trigger")
      arrivals.append(try controller.eventArrival(after: mark))
    }
    try waitFor("the source's \(runs) stamps", within: 60, interval: 10_000) {
      FileManager.default.fileExists(atPath: sourceRecord)
    }
    side.event = try Self.differences(arrivals, try LatencySummary.load(sourceRecord, droppingFirst: 0), "event")
  }

  /// later[i] - earlier[i]: the i-th value's latency. A count that differs, or a later time
  /// before its earlier one, means the two ends paired the wrong values: no figure then.
  static func differences(_ later: [UInt64], _ earlier: [UInt64], _ what: String) throws -> [UInt64] {
    guard later.count == earlier.count, zip(later, earlier).allSatisfy({ $0 >= $1 }) else {
      throw BenchError("the \(what) stamps do not pair up: \(earlier.count) sent, \(later.count) received")
    }
    return zip(later, earlier).map { $0 - $1 }
  }

  private func measureHAPPython(count: Int, latencies: Bool, attempt: Int, into side: inout Side) throws {
    // A new accessory (its own state file) for each attempt.
    let directory = try tools.directory("homekit-hap-python-\(count)" + (attempt > 1 ? "-attempt\(attempt)" : ""))
    let port = MosquittoBroker.freePort()
    let accessory = try ChildProcess(
      accessoryPython,
      [script, "accessory", String(port), String(count), directory + "/accessory.state", Self.setupCode],
      standardError: .file(directory + "/accessory.log"), keepInputOpen: true)
    defer { _ = try? accessory.terminate(within: 10) }
    try accessory.waitForLine(containing: "{\"ready\"", within: 120)
    let controller = try HomeKitBenchController(
      python: controllerPython, script: script, port: port, log: directory + "/controller.log")
    do {
      try controller.pair(code: Self.setupCode)
    } catch let error as BenchError where error.description.contains("AuthenticationError") {
      throw HAPPythonPairingFailed(message: error.description)
    }
    let listed = try controller.accessories()
    guard let memory = ProcessStats.memory(accessory.pid) else {
      throw BenchError("the HAP-python process ended; see \(directory)/accessory.log")
    }
    side.memory[count] = memory
    guard latencies else { return }
    guard let write = listed.on["Write"], let event = listed.on["Event"] else {
      throw BenchError("HAP-python lists no Write or Event switch: \(listed)")
    }
    side.verify = try controller.verify(runs: runs)

    for index in 0..<runs {
      let mark = accessory.lineCount
      let times = try controller.write(write, index % 2 == 0)
      let line = try accessory.waitForLine(containing: "{\"setter\": ", after: mark)
      side.write += try Self.differences(
        [try HomeKitBenchController.stamp(line.text, "setter")], [times.start], "write")
      side.writeAnswered += try Self.differences([times.answered], [times.start], "write response")
    }

    try controller.subscribe(event)
    var value = true
    for mode in ["coalesced", "immediate"] {
      for _ in 0..<runs {
        let (accessoryMark, controllerMark) = (accessory.lineCount, controller.process.lineCount)
        try accessory.write("set Event \(value) \(mode)\n")
        value.toggle()
        let set = try HomeKitBenchController.stamp(
          try accessory.waitForLine(containing: "{\"set\": ", after: accessoryMark).text, "set")
        let arrival = try controller.eventArrival(after: controllerMark)
        let latency = try Self.differences([arrival], [set], "event")
        if mode == "coalesced" { side.event += latency } else { side.eventImmediate += latency }
      }
    }
  }
}
