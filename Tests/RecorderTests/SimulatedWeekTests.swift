import Foundation
import PatchbayRecorder
import PatchbayTestSupport
import PatchbayValues
import Testing

/// The recorder on a real database file, its clock moved by hand: a week of values in seconds.
@Suite struct SimulatedWeekTests {
  static let start = 1_800_000_000.0

  /// A quarter of a million values over seven simulated days on ten ports (eight numeric, about
  /// 2.5 a minute each; a bool that changes every 100th value, a text that changes every 1000th):
  /// after it, nothing is older than the retention, numbers older than a day are one point per
  /// minute with min and max, the bool and the text older than a day keep only their changes, the
  /// last day is raw. (It wrote a million once: 16 s alone, but its 100 waits for the writer made
  /// it the last test to end in a loaded run, 604-2576 s, and it checked nothing more; the
  /// recorder's rate is the benchmark's figure 11.)
  @Test func aWeekOfValues() async throws {
    let directory = try TemporaryDirectory("patchbay-recorder")
    let path = directory.path + "/history.sqlite"
    let clock = ManualHistoryClock(start: Self.start)
    let policy = HistoryPolicy(retentionDays: 3, maximumMB: 500)
    let recorder = HistoryRecorder(path: path, policy: policy, clock: clock, capacity: 20_000)
    recorder.start()
    let total = 250_000
    let step = 7 * 86_400 / Double(total)
    let began = Date()
    for index in 0..<total {
      clock.advance(by: step)
      switch index % 10 {
      case 8: recorder.record(port: "door.open", value: .bool((index / 100) % 2 == 0))
      case 9: recorder.record(port: "house.mode", value: .string((index / 1000) % 2 == 0 ? "home" : "away"))
      case let sensor: recorder.record(port: "room\(sensor).temperature", value: .number(Double(index % 997) / 10))
      }
      // The queue is bounded: the feeder waits here (a test's choice) so that nothing is dropped.
      if index % 10_000 == 9_999 { await recorder.idle() }
    }
    await recorder.idle()
    let seconds = Date().timeIntervalSince(began)
    let counters = recorder.counters
    #expect(counters.written == total)
    #expect(counters.dropped == 0)
    let now = clock.now()
    let store = try #require(recorder.reader)
    print(
      "recorder: \(total) values over a simulated week in \(Int(seconds)) s; \(try store.count()) rows kept,"
        + " database \(recorder.databaseBytes) bytes (\(recorder.databaseBytes / 1024) KiB)")

    let temperature = try store.points(port: "room3.temperature", since: 0)
    // Retention: 3 days (maintenance runs once a simulated minute).
    #expect(temperature.first.map { $0.t >= now - 3 * 86_400 - 61 } == true, "\(String(describing: temperature.first))")
    let old = temperature.filter { $0.t < now - 86_400 - 121 }
    let recent = temperature.filter { $0.t > now - 86_400 + 1 }
    #expect(!old.isEmpty && !recent.isEmpty)
    // Downsampled: one point a minute, on the minute, the mean between min and max.
    #expect(old.allSatisfy { $0.min != nil && $0.max != nil && $0.t.truncatingRemainder(dividingBy: 60) == 0 })
    #expect(Set(old.map(\.t)).count == old.count)
    #expect(
      old.allSatisfy { point in
        guard case .number(let mean) = point.value, let low = point.min, let high = point.max else { return false }
        return low <= mean + 1e-9 && mean <= high + 1e-9
      })
    // Two days of minutes, give or take the edges.
    #expect(old.count > 2 * 1440 - 10 && old.count <= 2 * 1440 + 2, "\(old.count) downsampled points")
    // The last day as it came: one value in ten over 7 days goes to this port.
    #expect(recent.allSatisfy { $0.min == nil && $0.max == nil })
    #expect(abs(Double(recent.count) - Double(total) / 10 / 7) < 200, "\(recent.count) raw points")

    for port in ["door.open", "house.mode"] {
      let points = try store.points(port: port, since: 0)
      let older = points.filter { $0.t < now - 86_400 - 121 }
      #expect(!older.isEmpty)
      // Changes only: no two neighbours alike.
      #expect(zip(older, older.dropFirst()).allSatisfy { $0.value != $1.value }, "\(port)")
      #expect(points.allSatisfy { $0.t >= now - 3 * 86_400 - 61 })
    }
    recorder.stop()

    // `patchbay history` opens the same file read-only.
    let reader = try HistoryStore(readingAt: path)
    #expect(try reader.points(port: "room3.temperature", since: now - 3600).count > 100)
  }

  /// Past `max_size_mb` the oldest values go.
  @Test func theSizeCapDeletesTheOldest() async throws {
    let directory = try TemporaryDirectory("patchbay-recorder")
    let clock = ManualHistoryClock(start: Self.start)
    let recorder = HistoryRecorder(
      path: directory.path + "/history.sqlite", policy: HistoryPolicy(retentionDays: 30, maximumMB: 1), clock: clock)
    recorder.start()
    let text = String(repeating: "x", count: 500)
    for index in 0..<20_000 {
      clock.advance(by: 1)
      recorder.record(port: "log.line", value: .string("\(index) \(text)"))
      if index % 1000 == 999 { await recorder.idle() }
    }
    await recorder.idle()
    let store = try #require(recorder.reader)
    let points = try store.points(port: "log.line", since: 0)
    print("size cap: \(recorder.databaseBytes) bytes on disk, \(points.count) of 20000 values kept")
    #expect(recorder.counters.written == 20_000)
    #expect(points.count < 20_000 && points.count > 500)
    // The newest are kept.
    #expect(points.last?.value == .string("19999 \(text)"))
    #expect(recorder.databaseBytes < 3 * 1_048_576)
    recorder.stop()
  }

  /// A writer that cannot keep up (here: never started) costs history, counted, never a wait.
  @Test func aFullQueueDropsAndCounts() async throws {
    let directory = try TemporaryDirectory("patchbay-recorder")
    let recorder = HistoryRecorder(
      path: directory.path + "/history.sqlite", policy: HistoryPolicy(retentionDays: 1, maximumMB: 10), capacity: 10)
    for index in 0..<25 { recorder.record(port: "a.b", value: .integer(Int64(index))) }
    #expect(recorder.counters.dropped == 15)
    #expect(recorder.dropped(port: "a.b") == 15)
    recorder.start()
    await recorder.idle()
    #expect(recorder.counters.written == 10)
    #expect(try recorder.reader?.points(port: "a.b", since: 0).map(\.value) == (0..<10).map { .number(Double($0)) })
    recorder.stop()
  }
}
