/// Keeps a misbehaving plugin from flooding the journal (the host budgets the plugin's log
/// calls, the hub the lines it writes to its standard output and error). Per kind of message (a refused publish
/// on one port, say), the first `burst` lines of each `interval` pass; the rest are counted and
/// summarised once the interval has passed: at most `burst + 1` lines per kind per interval,
/// however fast the plugin goes.
public struct LogBudget: Sendable {
  public struct Summary: Equatable, Sendable {
    public var kind: String
    public var suppressed: Int
    public var seconds: Double
  }

  private struct Window: Sendable {
    var start: Double
    var passed = 0
    var suppressed = 0
  }

  public let burst: Int
  public let interval: Double
  private var windows: [String: Window] = [:]

  public init(burst: Int = 3, interval: Double = 10) {
    self.burst = burst
    self.interval = interval
  }

  /// Whether a line of `kind` may be logged now.
  public mutating func admit(_ kind: String, now: Double) -> Bool {
    var window = windows[kind] ?? Window(start: now)
    defer { windows[kind] = window }
    if window.passed < burst {
      window.passed += 1
      return true
    }
    window.suppressed += 1
    return false
  }

  /// Summaries of the windows that are over and suppressed something; those windows start again.
  public mutating func dueSummaries(now: Double) -> [Summary] {
    var due: [Summary] = []
    for (kind, window) in windows where now - window.start >= interval {
      if window.suppressed > 0 {
        due.append(Summary(kind: kind, suppressed: window.suppressed, seconds: now - window.start))
        // Still flooding: from now on only summaries, until a quiet interval resets the kind.
        windows[kind] = Window(start: now, passed: burst)
      } else {
        windows[kind] = nil
      }
    }
    return due.sorted { $0.kind < $1.kind }
  }
}
