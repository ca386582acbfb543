/// Delays before retrying a bridge that failed (refused, timed out, 429, 503): doubling from
/// `initial` up to `maximum`, each with +-20 % jitter so several clients do not retry in step.
struct RetryBackoff: Sendable {
  let initial: Double
  let maximum: Double
  private(set) var failures = 0

  init(initial: Double = 0.5, maximum: Double) {
    self.initial = initial
    self.maximum = maximum
  }

  /// The delay before the next attempt, in seconds; each failure doubles the next one.
  mutating func next() -> Double {
    let base = min(maximum, initial * Double(1 << min(failures, 20)))
    failures += 1
    return base * Double.random(in: 0.8...1.2)
  }

  mutating func reset() { failures = 0 }
}
