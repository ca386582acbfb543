import ChildProcesses
import Foundation
import PatchbayRecorder
import PatchbayValues

/// Figure 11: the history. Values per second the recorder writes (its queue and writer thread)
/// against the same batches written straight into the store; and the hub's hop latency with a
/// patchbay-web that records every value against one that records none, in the same run.
struct RecorderBenchmark {
  let tools: BenchTools
  let values: Int

  /// (through the recorder, straight into the store), values per second.
  func writesPerSecond() throws -> (recorder: Double, direct: Double) {
    let directory = try tools.directory("recorder-writes")
    let policy = HistoryPolicy(retentionDays: 30, maximumMB: 1024)
    let recorder = HistoryRecorder(path: directory + "/queued.sqlite", policy: policy)
    recorder.start()
    defer { recorder.stop() }
    let began = monotonicNanos()
    for index in 0..<values {
      recorder.record(port: "bench\(index % 10).value", value: .number(Double(index)))
      // The feeder waits for the writer each queue-full: what is measured is the writer's pace.
      if index % recorder.capacity == recorder.capacity - 1 { wait(recorder) }
    }
    wait(recorder)
    let queued = Double(values) / (Double(monotonicNanos() - began) / 1e9)
    guard recorder.counters.written == values else {
      throw BenchError("the recorder wrote \(recorder.counters.written) of \(values) values")
    }
    let store = try HistoryStore(writingAt: directory + "/direct.sqlite")
    let now = Date().timeIntervalSince1970
    let direct = monotonicNanos()
    for start in stride(from: 0, to: values, by: 1000) {
      try store.write(
        (start..<min(values, start + 1000)).map {
          HistorySample(port: "bench\($0 % 10).value", time: now + Double($0) / 1000, value: .number(Double($0)))
        })
    }
    return (queued, Double(values) / (Double(monotonicNanos() - direct) / 1e9))
  }

  private func wait(_ recorder: HistoryRecorder) {
    let done = DispatchSemaphore(value: 0)
    Task {
      await recorder.idle()
      done.signal()
    }
    done.wait()
  }

  /// The hop of figure 1 (plugin -> hub -> plugin) with a patchbay-web following every value;
  /// `recording`: it writes every one into the history (`[recorder] ports = ["*"]`), else none.
  /// Returns the samples and the recorder's written and dropped counts.
  func hop(_ latency: LatencyBenchmarks, recording: Bool) throws -> (samples: [UInt64], written: Int, dropped: Int) {
    let directory = try tools.directory(recording ? "hop-recorded" : "hop-unrecorded")
    let file = directory + "/latencies"
    let config =
      ProbeConfig.instance("src", .source, count: latency.total, record: directory + "/source")
      + ProbeConfig.instance("sink", .sink, count: latency.total, record: file)
      + ProbeConfig.route("src.value", "sink.value") + ProbeConfig.route("sink.echo", "src.echo")
      + (recording ? "[recorder]\nports = [\"*\"]\n" : "[recorder]\nenabled = false\n")
    let hub = try HubProcess(tools: tools, directory: directory, config: config)
    defer { hub.stop() }
    try hub.waitUntilRunning()
    let web = try ChildProcess(
      tools.productDirectory + "/patchbay-web",
      ["--listen", "127.0.0.1:0", "--socket", hub.socket, "--config", directory + "/patchbay.toml"])
    defer { _ = try? web.terminate(within: 10) }
    try web.waitForLine(containing: "patchbay-web listening on", within: 60)
    let line = web.lines.first { $0.contains("patchbay-web listening on") } ?? ""
    guard let range = line.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression) else {
      throw BenchError("no port in: \(line)")
    }
    let base = "http://" + line[range]
    // Following the hub: its live stream says so (the watch starts right after).
    try waitFor("patchbay-web to follow the hub", within: 60, interval: 100_000) {
      let events = try? ChildProcess.run(
        "/usr/bin/env", ["curl", "-s", "-N", "--max-time", "2", base + "/api/events"], within: 30)
      return events?.output.contains("data: up") == true
    }
    try hub.send("src.go", "trigger")
    try waitFor("\(latency.total) messages through the hub", within: latency.deadline, interval: 20_000) {
      FileManager.default.fileExists(atPath: file)
    }
    let samples = try LatencySummary.load(file, droppingFirst: latency.warmup)
    let metrics = (try? ChildProcess.run("/usr/bin/env", ["curl", "-s", base + "/metrics"], within: 30).output) ?? ""
    func count(_ name: String) -> Int {
      metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap {
        Int($0.split(separator: " ").last ?? "")
      } ?? 0
    }
    return (samples, count("patchbay_recorder_written_total"), count("patchbay_recorder_dropped_total"))
  }
}
