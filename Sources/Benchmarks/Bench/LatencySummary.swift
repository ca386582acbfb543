import Foundation
import Histogram

/// Percentiles of one-way latencies (recorded in nanoseconds by a probe, reported in µs).
struct LatencySummary: Codable, Sendable {
  var count: Int
  var p50: Double
  var p99: Double
  var p999: Double
  var max: Double

  init(nanoseconds samples: some Sequence<UInt64>) {
    var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
    for sample in samples { _ = histogram.record(Swift.min(sample, 60_000_000_000)) }
    count = Int(histogram.totalCount)
    p50 = Double(histogram.valueAtPercentile(50)) / 1000
    p99 = Double(histogram.valueAtPercentile(99)) / 1000
    p999 = Double(histogram.valueAtPercentile(99.9)) / 1000
    max = Double(histogram.max) / 1000
  }

  /// A probe's file of little-endian u64 nanoseconds, without the first `warmup` samples.
  static func load(_ path: String, droppingFirst warmup: Int) throws -> [UInt64] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let samples = data.withUnsafeBytes { raw in
      (0..<raw.count / 8).map { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
    }
    return Array(samples.dropFirst(warmup))
  }

  /// p50, p99 and p99.9 rows against the same percentiles of a baseline.
  func figures(_ section: String, _ name: String, baseline: (name: String, summary: LatencySummary)?) -> [Figure] {
    let pairs: [(String, Double, Double?)] = [
      ("p50", p50, baseline?.summary.p50), ("p99", p99, baseline?.summary.p99),
      ("p99.9", p999, baseline?.summary.p999),
    ]
    return pairs.map { label, value, base in
      Figure(
        section, "\(name) \(label)", value, "µs", baseline: base.map { (baseline!.name + " " + label, $0) },
        note: label == "p50" ? "\(count) messages, max \(String(format: "%.0f", max)) µs" : nil)
    }
  }
}
