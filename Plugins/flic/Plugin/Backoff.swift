/// Delays between reconnect attempts: doubling from `initial` up to `maximum`, each with
/// +-20 % jitter so many clients restarted together do not retry in lockstep.
struct Backoff: Sendable {
  var initial: Double = 0.5
  var maximum: Double = 30
  private(set) var attempts = 0

  init(initial: Double = 0.5, maximum: Double = 30) {
    self.initial = initial
    self.maximum = maximum
  }

  /// The delay before the next attempt, in seconds.
  mutating func next() -> Double {
    let base = min(maximum, initial * Double(1 << min(attempts, 20)))
    attempts += 1
    return base * Double.random(in: 0.8...1.2)
  }

  mutating func reset() { attempts = 0 }
}
