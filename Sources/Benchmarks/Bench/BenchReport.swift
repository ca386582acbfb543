import Foundation
import Synchronization

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

/// Every figure of a run and the goals judged on them, printed as tables and written as JSON.
/// The sections add to it one after another; the mutex makes it Sendable without a promise.
final class BenchReport: Sendable {
  let machine: MachineInfo
  private let state = Mutex<(figures: [Figure], goals: [Goal])>(([], []))

  init(machine: MachineInfo) { self.machine = machine }

  var figures: [Figure] { state.withLock { $0.figures } }
  var goals: [Goal] { state.withLock { $0.goals } }

  func add(_ new: [Figure]) { state.withLock { $0.figures += new } }
  func add(goals new: [Goal]) { state.withLock { $0.goals += new } }

  func table() -> String {
    let figures = self.figures
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
    let notes = figures.compactMap { figure in figure.note.map { "  \(figure.section) \(figure.name): \($0)" } }
    return (Self.columns(rows) + ["", "notes:"] + notes).joined(separator: "\n")
  }

  /// Issue 19's goals: the ratio, the limit, met or missed, and what bounds a miss.
  func goalTable() -> String {
    let goals = self.goals
    guard !goals.isEmpty else { return "" }
    let rows =
      [["goal (issue 19)", "ratio", "limit", "verdict"]]
      + goals.map { goal in
        [
          goal.goal, goal.ratio.map { String(format: "%.2f×", $0) } ?? "-",
          (goal.atMost ? "<= " : ">= ") + String(format: "%.1f×", goal.limit), goal.verdict,
        ]
      }
    // Every goal's note: for a miss what bounds it, for a met latency goal the phase it met in.
    let notes = goals.compactMap { goal in
      goal.met == nil ? nil : goal.note.map { "  \(goal.goal) (\(goal.verdict)): \($0)" }
    }
    return (Self.columns(rows) + (notes.isEmpty ? [] : ["", "what the run measured about each goal:"] + notes))
      .joined(separator: "\n")
  }

  private static func columns(_ rows: [[String]]) -> [String] {
    let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    let lines = rows.map { row in
      row.indices.map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: " | ")
    }
    return [lines[0], String(repeating: "-", count: lines[0].count)] + lines.dropFirst()
  }

  func write(json path: String) throws {
    struct Document: Codable {
      var machine: MachineInfo
      var figures: [Figure]
      var goals: [Goal]
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(Document(machine: machine, figures: figures, goals: goals)).write(
      to: URL(fileURLWithPath: path))
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
