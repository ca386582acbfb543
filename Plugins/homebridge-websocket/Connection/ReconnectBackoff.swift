/// Delays between reconnect attempts: 0.5 s doubling to 30 s, each with ±20 % jitter so
/// several clients do not hammer a restarting Homebridge in step.
struct ReconnectBackoff {
  static let initial: Double = 0.5
  static let maximum: Double = 30

  private var next = initial

  /// The delay before the next attempt, in seconds; each call doubles the following one.
  mutating func nextDelay() -> Double {
    let base = next
    next = min(next * 2, Self.maximum)
    return base * Double.random(in: 0.8...1.2)
  }

  mutating func reset() { next = Self.initial }
}
