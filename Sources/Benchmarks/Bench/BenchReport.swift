import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The machine a run happened on; figures from different machines (or runs) compare only as
/// ratios.
struct MachineInfo: Codable, Sendable {
  var date: String
  var host: String
  var kernel: String
  var cores: Int
  var loadAverage: [Double]

  static func current() -> MachineInfo {
    var names = utsname()
    uname(&names)
    func text<T>(_ field: T) -> String {
      withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
    var load = [Double](repeating: 0, count: 3)
    _ = getloadavg(&load, 3)
    return MachineInfo(
      date: ISO8601DateFormatter().string(from: Date()), host: text(names.nodename),
      kernel: text(names.sysname) + " " + text(names.release) + " " + text(names.machine),
      cores: ProcessInfo.processInfo.activeProcessorCount, loadAverage: load)
  }

  var summary: String {
    "\(cores) cores, \(kernel), load \(loadAverage.map { String(format: "%.2f", $0) }.joined(separator: " "))"
  }
}

/// Every figure of a run, printed as a table and written as JSON.
final class BenchReport: @unchecked Sendable {
  let machine: MachineInfo
  private(set) var figures: [Figure] = []

  init(machine: MachineInfo) { self.machine = machine }

  func add(_ new: [Figure]) { figures += new }

  func table() -> String {
    let header = ["section", "figure", "value", "baseline (same run)", "baseline value", "ratio"]
    let rows =
      [header]
      + figures.map { figure in
        [
          figure.section, figure.name, Self.format(figure.value, figure.unit), figure.baselineName ?? "-",
          figure.baseline.map { Self.format($0, figure.unit) } ?? "-",
          figure.ratio.map { String(format: "%.2f×", $0) } ?? "-",
        ]
      }
    let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    let lines = rows.map { row in
      row.indices.map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: " | ")
    }
    let notes = figures.compactMap { figure in figure.note.map { "  \(figure.section) \(figure.name): \($0)" } }
    return ([lines[0], String(repeating: "-", count: lines[0].count)] + lines.dropFirst() + ["", "notes:"] + notes)
      .joined(separator: "\n")
  }

  func write(json path: String) throws {
    struct Document: Codable {
      var machine: MachineInfo
      var figures: [Figure]
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(Document(machine: machine, figures: figures)).write(to: URL(fileURLWithPath: path))
  }

  static func format(_ value: Double, _ unit: String) -> String {
    switch value {
    case 100_000...: String(format: "%.0f %@", value, unit)
    case 100...: String(format: "%.0f %@", value, unit)
    case 10...: String(format: "%.1f %@", value, unit)
    default: String(format: "%.2f %@", value, unit)
    }
  }
}
