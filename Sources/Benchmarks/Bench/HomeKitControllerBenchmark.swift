import ChildProcesses
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Figure 10's controller half (issue 32): the homekit-controller plugin in a real hub, paired
/// with the HAP-python 5.0.0 bench bridge (Sources/Benchmarks/Scripts/homekit_bench.py's
/// accessory role, a process of its own), against aiohomekit 4.0.1 doing the same with the same
/// bridge program in the same run (figure 10's HAP-python side):
/// - hub input port (a bench-probe source's publish time) -> HAP-python's setter callback;
/// - HAP-python's set_value, pushed at once -> the hub's output port (a bench-probe sink's
///   receive time).
/// Every time is CLOCK_MONOTONIC (Python's time.monotonic_ns() is the same clock).
struct HomeKitControllerBenchmark {
  let tools: BenchTools
  let runs: Int
  let script: String
  let accessoryPython: String

  func run() throws -> (write: [UInt64], event: [UInt64]) {
    let directory = try tools.directory("homekit-controller")
    let port = MosquittoBroker.freePort()
    let accessory = try ChildProcess(
      accessoryPython,
      [script, "accessory", String(port), "10", directory + "/accessory.state", HomeKitBenchmark.setupCode],
      standardError: .file(directory + "/accessory.log"), keepInputOpen: true)
    defer { _ = try? accessory.terminate(within: 10) }
    try accessory.waitForLine(containing: "{\"ready\"", within: 120)

    // Paired as a user pairs: `patchbay homekit-controller pair`, here by address.
    let pairing = try ChildProcess.runToEnd(
      tools.productDirectory + "/patchbay-homekit-controller",
      [
        "pair", "house", "--device", "bench", "--code", HomeKitBenchmark.setupCode, "--address", "127.0.0.1:\(port)",
        "--state-directory", directory + "/state",
      ])
    guard pairing.status == 0 else { throw BenchError("pairing failed: \(pairing.output)") }

    let sourceRecord = directory + "/write-stamps"
    let sinkRecord = directory + "/event-stamps"
    // One more than measured on each side: a first write that waits for the connection, and
    // the Event switch's value read at connect.
    let config =
      """
      [instances.house]
      plugin = "homekit-controller"

      """
      + ProbeConfig.instance(
        "src", .source, kind: "state", mode: .stamp, count: runs + 1, record: sourceRecord,
        extra: "value_type = \"bool\"")
      + ProbeConfig.instance(
        "sink", .sink, kind: "state", mode: .stamp, count: runs + 1, record: sinkRecord, extra: "value_type = \"bool\"")
      + ProbeConfig.route("src.value", "house.write.on") + ProbeConfig.route("house.event.state", "sink.value")
    let hub = try HubProcess(tools: tools, directory: directory, config: config)
    defer { hub.stop() }
    try hub.waitUntilRunning()

    var setters: [UInt64] = []
    for index in 0...runs {
      let mark = accessory.lineCount
      try hub.send("src.go", "trigger")
      // The first waits for the connection (pair-verify, /accessories, subscriptions).
      let line = try accessory.waitForLine(containing: "{\"setter\": ", after: mark, within: index == 0 ? 120 : 30)
      if index > 0 { setters.append(try HomeKitBenchController.stamp(line.text, "setter")) }
    }
    try waitFor("the source's stamps", within: 60, interval: 10_000) {
      FileManager.default.fileExists(atPath: sourceRecord)
    }
    let write = try HomeKitBenchmark.differences(
      setters, try LatencySummary.load(sourceRecord, droppingFirst: 1), "controller write")

    var sets: [UInt64] = []
    var value = true
    for _ in 0..<runs {
      let mark = accessory.lineCount
      try accessory.write("set Event \(value) immediate\n")
      value.toggle()
      sets.append(
        try HomeKitBenchController.stamp(
          try accessory.waitForLine(containing: "{\"set\": ", after: mark).text, "set"))
      // The sink keeps each value before the next (a state route keeps only the newest).
      usleep(20_000)
    }
    try waitFor("the sink's stamps", within: 60, interval: 10_000) {
      FileManager.default.fileExists(atPath: sinkRecord)
    }
    let event = try HomeKitBenchmark.differences(
      try LatencySummary.load(sinkRecord, droppingFirst: 1), sets, "controller event")
    return (write, event)
  }
}
