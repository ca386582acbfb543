import Foundation
import Logging
import Synchronization

/// How a write that keeps failing reaches the log: the first failure in full, then one summary
/// a minute while it goes on, and one line when it works again. A state path that is a
/// directory once logged 300 errors a second (a save per routed value).
final class WriteFailureLog: Sendable {
  static let interval = 60.0

  private struct Tally {
    var failing = false
    var lastSummary = 0.0
    var suppressed = 0
    var total = 0
    var lastError = ""
  }

  private let tally = Mutex(Tally())
  private let what: String
  private let logger: Logger

  /// `what`: the thing written, as the log names it ("state file /var/lib/patchbay/hub-state.json").
  init(what: String, logger: Logger) {
    self.what = what
    self.logger = logger
  }

  private static func now() -> Double { ProcessInfo.processInfo.systemUptime }

  func failed(_ error: String) {
    let now = Self.now()
    enum Line {
      case first
      case summary(count: Int, seconds: Double)
    }
    let line: Line? = tally.withLock { tally in
      tally.total += 1
      tally.lastError = error
      guard tally.failing else {
        tally.failing = true
        tally.lastSummary = now
        return .first
      }
      tally.suppressed += 1
      guard now - tally.lastSummary >= Self.interval else { return nil }
      defer {
        tally.suppressed = 0
        tally.lastSummary = now
      }
      return .summary(count: tally.suppressed, seconds: now - tally.lastSummary)
    }
    switch line {
    case .first:
      logger.error("cannot write \(what): \(error) (further failures are summarised once a minute)")
    case .summary(let count, let seconds):
      logger.error("cannot write \(what): \(count) more failures in the last \(Int(seconds.rounded())) s (\(error))")
    case nil:
      break
    }
  }

  func succeeded() {
    let total: Int? = tally.withLock { tally in
      guard tally.failing else { return nil }
      defer { tally = Tally() }
      return tally.total
    }
    if let total { logger.notice("\(what) written again, after \(total) failed writes") }
  }
}
