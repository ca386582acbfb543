/// How one instance's crashes reach the log: each crash in full at first; once it crashes
/// again and again (more than `burst` times within `interval`, the same way as the crash
/// before), further crashes and the lines that go with them (restarting, created, running, the
/// plugin's own) are counted and summarised once an `interval`. A crash of a new kind is news
/// and is always logged. A crash loop of 600 restarts a minute is a line a minute, not 40,000.
package struct CrashLogBudget: Sendable {
  package static let burst = 5
  package static let interval = 60.0

  package enum Admission: Equatable, Sendable {
    case log
    /// Log it, and say that from now on crashes are summarised (`count` within `seconds`).
    case logAndSummariseFromNow(count: Int, seconds: Double)
    /// Counted for the next summary.
    case count
  }

  package struct Summary: Equatable, Sendable {
    package var crashes: Int
    package var lines: Int
    package var seconds: Double
    package var lastReason: String
  }

  private var recent: [Double] = []
  private var lastReason: String?
  /// Crashes are being summarised since this time (the last summary).
  private var quietSince: Double?
  private var crashes = 0
  private var lines = 0

  package init() {}

  package var isQuiet: Bool { quietSince != nil }

  package mutating func crash(now: Double, reason: String) -> Admission {
    defer { lastReason = reason }
    recent = recent.filter { now - $0 < Self.interval } + [now]
    let repeated = reason == lastReason
    if quietSince != nil {
      guard repeated else { return .log }
      crashes += 1
      return .count
    }
    guard repeated, recent.count > Self.burst else { return .log }
    quietSince = now
    return .logAndSummariseFromNow(count: recent.count, seconds: now - recent[0])
  }

  /// A line about restarting (or of the plugin's): false while summarising (then counted).
  package mutating func admitLine() -> Bool {
    guard quietSince != nil else { return true }
    lines += 1
    return false
  }

  /// When `dueSummary` has something to say next (nil: not summarising).
  package var nextSummaryDue: Double? { quietSince.map { $0 + Self.interval } }

  /// Once an interval while summarising: what was counted. After an interval without a
  /// crash, crashes are logged in full again.
  package mutating func dueSummary(now: Double) -> Summary? {
    guard let since = quietSince, now - since >= Self.interval else { return nil }
    defer {
      crashes = 0
      lines = 0
    }
    guard crashes > 0 else {
      quietSince = nil
      recent.removeAll()
      return lines > 0 ? Summary(crashes: 0, lines: lines, seconds: now - since, lastReason: lastReason ?? "") : nil
    }
    quietSince = now
    return Summary(crashes: crashes, lines: lines, seconds: now - since, lastReason: lastReason ?? "")
  }
}
