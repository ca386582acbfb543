/// Delays between attempts to reach a peer that failed (refused, closed, timed out, busy):
/// doubling from `initial` up to `maximum`, each with ±20 % jitter so several clients
/// restarted together do not retry in step. Every bundled plugin's reconnect loop uses it.
public struct RetryBackoff: Sendable {
  public let initial: Double
  public let maximum: Double
  /// Attempts since the last success.
  public private(set) var attempts = 0

  public init(initial: Double = 0.5, maximum: Double = 30) {
    self.initial = initial
    self.maximum = maximum
  }

  /// The delay before the next attempt, in seconds; each call doubles the following one.
  public mutating func next() -> Double {
    let base = min(maximum, initial * Double(1 << min(attempts, 20)))
    attempts += 1
    return base * Double.random(in: 0.8...1.2)
  }

  /// After a success: the next failure starts again from `initial`.
  public mutating func reset() { attempts = 0 }
}

extension RetryBackoff {
  /// A delay for a log line, to a tenth of a second: "1.5 s" (no Foundation formatter).
  public static func describe(_ seconds: Double) -> String {
    let tenths = Int((max(seconds, 0) * 10).rounded())
    return "\(tenths / 10).\(tenths % 10) s"
  }
}
