import ChildProcesses
import Foundation

/// aiohomekit as the HomeKit controller of figure 10: Sources/Benchmarks/Scripts/homekit_bench.py
/// in its `controller` role, a real process driven one JSON command per line.
final class HomeKitBenchController {
  let process: ChildProcess

  init(python: String, script: String, port: Int, log: String) throws {
    process = try ChildProcess(
      python, [script, "controller", "127.0.0.1", String(port)], standardError: .file(log), keepInputOpen: true)
    try process.waitForLine(containing: "{\"ready\"", within: 120)
  }

  deinit { _ = try? process.terminate(within: 10) }

  /// Sends `command`; its answer's `ok` value, or the controller's error.
  @discardableResult
  func send(_ command: [String: Any], within seconds: Double = 120) throws -> Any {
    let text = String(decoding: try JSONSerialization.data(withJSONObject: command), as: UTF8.self)
    let mark = process.lineCount
    try process.write(text + "\n")
    let line = try process.waitForLine(containing: "{\"ok\": ", after: mark, within: seconds)
    guard let answer = Self.object(line.text) else { throw BenchError("aiohomekit answered \(line.text)") }
    if let error = answer["error"] as? String {
      throw BenchError("aiohomekit: \(text) failed: \(error): \(answer["message"] ?? "")")
    }
    return answer["ok"] ?? NSNull()
  }

  func pair(code: String) throws { try send(["cmd": "pair", "pin": code]) }

  /// One /accessories read: each accessory's name and the aid and iid of its On.
  func accessories() throws -> (count: Int, on: [String: (aid: Int, iid: Int)]) {
    guard let answer = try send(["cmd": "accessories"]) as? [String: Any], let count = answer["count"] as? Int,
      let ids = answer["ids"] as? [String: [Any]]
    else { throw BenchError("aiohomekit listed no accessories") }
    var on: [String: (aid: Int, iid: Int)] = [:]
    for (name, pair) in ids {
      if let aid = pair.first as? Int, let iid = pair.last as? Int { on[name] = (aid, iid) }
    }
    return (count, on)
  }

  /// `runs` connects + pair-verifies on new connections: nanoseconds each.
  func verify(runs: Int) throws -> [UInt64] {
    guard let times = try send(["cmd": "verify", "runs": runs], within: 120 + Double(runs)) as? [Int] else {
      throw BenchError("aiohomekit returned no pair-verify times")
    }
    return times.map { UInt64($0) }
  }

  /// Writes `value` to an On; the controller's CLOCK_MONOTONIC time just before the put, and
  /// when the accessory's response was in.
  func write(_ id: (aid: Int, iid: Int), _ value: Bool) throws -> (start: UInt64, answered: UInt64) {
    guard let times = try send(["cmd": "write", "aid": id.aid, "iid": id.iid, "value": value]) as? [Int],
      times.count == 2
    else { throw BenchError("aiohomekit returned no write times") }
    return (UInt64(times[0]), UInt64(times[1]))
  }

  func subscribe(_ id: (aid: Int, iid: Int)) throws { try send(["cmd": "subscribe", "aid": id.aid, "iid": id.iid]) }

  /// When the first event after output line `mark` arrived at the controller (its own stamp).
  func eventArrival(after mark: Int, within seconds: Double = 30) throws -> UInt64 {
    let line = try process.waitForLine(containing: "{\"event\": ", after: mark, within: seconds)
    return try Self.stamp(line.text, "at")
  }

  static func object(_ line: String) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
  }

  /// The integer nanoseconds under `key` of a JSON line.
  static func stamp(_ line: String, _ key: String) throws -> UInt64 {
    guard let value = object(line)?[key] as? Int else { throw BenchError("no \(key) in \(line)") }
    return UInt64(value)
  }
}
