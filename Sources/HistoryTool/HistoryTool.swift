import ArgumentParser
import Foundation
import PatchbayRecorder
import PatchbayValues

/// `patchbay-history`, which `patchbay history PORT [--since 6h]` runs: the recorded values of a
/// port, read-only from the history database (patchbay-web records it; the hub need not run).
/// A program of its own, installed with patchbay-web, so the hub's binary links no SQLite.
@main
struct HistoryTool: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "patchbay-history", abstract: "Print the recorded values of a port, oldest first.")
  @Argument(help: "The port, INSTANCE.PORT (an output, e.g. 'hall.temperature').") var port: String
  @Option(help: "The history database (patchbay history passes the one in the hub's state directory).")
  var database: String
  @Option(help: "How far back: a number with s, m, h, d or w (90s, 30m, 6h, 7d).") var since: String = "6h"
  @Flag(help: "Print the answer of GET /api/history (JSON) instead of lines.") var json = false

  func run() throws {
    guard let seconds = Self.seconds(since) else {
      throw ValidationError("--since: expected a number with s, m, h, d or w (e.g. 6h), got '\(since)'")
    }
    guard FileManager.default.fileExists(atPath: database) else {
      fail("no history yet: \(database) does not exist. patchbay-web records it while it runs; see docs/web.md")
    }
    let start = (Date().timeIntervalSince1970 - seconds).rounded(.down)
    let points: [HistoryPoint]
    let store: HistoryStore
    do {
      store = try HistoryStore(readingAt: database)
      points = try store.points(port: port, since: start)
    } catch {
      fail("cannot read the history in \(database): \(error)")
    }
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      let data = try encoder.encode(HistoryAnswer(port: port, since: start, points: points, dropped: 0))
      print(String(decoding: data, as: UTF8.self))
      return
    }
    guard !points.isEmpty else {
      let known = (try? store.knows(port: port)) ?? false
      fail(
        known
          ? "no values of \(port) in the last \(since)"
          : "no history of \(port) yet in \(database) (is it an output that [recorder] records? see docs/web.md)")
    }
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
    formatter.timeZone = .current
    for point in points {
      var line = formatter.string(from: Date(timeIntervalSince1970: point.t)) + "  " + Self.text(point.value)
      if let low = point.min, let high = point.max {
        line += "  (minute: min \(Self.text(.number(low))), max \(Self.text(.number(high))))"
      }
      print(line)
    }
  }

  private func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    Foundation.exit(1)
  }

  static func text(_ value: JSONValue) -> String {
    if case .number(let number) = value, number == number.rounded(), abs(number) < 1e15 {
      return String(Int64(number))
    }
    return value.description
  }

  /// `90s`, `30m`, `6h`, `7d`, `2w`, or plain seconds.
  static func seconds(_ text: String) -> Double? {
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
    guard let last = text.last else { return nil }
    let (digits, unit) = units[last].map { (text.dropLast(), $0) } ?? (Substring(text), 1)
    guard let number = Double(digits), number >= 0, number.isFinite else { return nil }
    return number * unit
  }
}
