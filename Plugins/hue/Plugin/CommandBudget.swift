/// How many commands of one kind (group or light) the bridge may see: at most `capacity` in
/// any `window` seconds, evenly spaced. Counted on the plugin's side so that no delay on the
/// way can ever show the bridge more: a command counts from when it is sent until `window`
/// after its answer came back (the bridge saw it before it answered).
struct CommandBudget: Sendable {
  let capacity: Int
  let window: Double
  private var inFlight = 0
  private var answers: [Double] = []
  private var lastSent = -Double.infinity

  /// `rate` commands per second: `floor(rate)` per second, or one per `1 / rate` s below 1/s.
  init(rate: Double) {
    capacity = max(1, Int(rate.rounded(.down)))
    window = rate >= 1 ? 1 : 1 / rate
  }

  /// The gap kept between two commands, so a burst is spread over the window.
  var spacing: Double { window / Double(capacity) }

  /// The earliest time, not before `now`, at which a command may go; nil while only an answer
  /// can free the budget.
  func nextTime(after now: Double) -> Double? {
    let recent = answers.filter { $0 > now - window }.sorted()
    var time = lastSent + spacing
    let counted = inFlight + recent.count
    if counted >= capacity {
      // The oldest answers that must leave the window first.
      let expiring = counted - capacity
      guard expiring < recent.count else { return nil }
      time = max(time, recent[expiring] + window)
    }
    return max(time, now)
  }

  func allows(now: Double) -> Bool { nextTime(after: now).map { $0 <= now } ?? false }

  mutating func sent(now: Double) {
    inFlight += 1
    lastSent = now
  }

  /// The bridge answered, or the request failed (it may have reached the bridge).
  mutating func answered(now: Double) {
    inFlight = max(0, inFlight - 1)
    answers.removeAll { $0 <= now - window }
    answers.append(now)
  }
}
