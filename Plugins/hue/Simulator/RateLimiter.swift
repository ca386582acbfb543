/// The bridge's command budget: at most `perSecond` commands of a kind in any one second (a
/// sliding window over the accepted ones); below one per second, one per `1 / perSecond` s.
struct RateLimiter: Sendable {
  let perSecond: Double
  private let window: Double
  private let capacity: Int
  private var accepted: [Double] = []

  init(perSecond: Double) {
    self.perSecond = perSecond
    window = perSecond >= 1 ? 1 : 1 / perSecond
    capacity = max(1, Int(perSecond.rounded(.down)))
  }

  /// Takes a command at `now` (seconds) if the budget allows it.
  mutating func admit(now: Double) -> Bool {
    accepted.removeAll { $0 <= now - window }
    guard accepted.count < capacity else { return false }
    accepted.append(now)
    return true
  }
}

/// What the bridge does with a command over its budget.
enum OverLimitPolicy: String, Sendable, CaseIterable {
  /// Answers success and never applies it (what older bridges do: some lights stay unchanged).
  case drop
  /// HTTP 429 with an HTML body.
  case tooManyRequests = "429"
  /// HTTP 503 with an HTML body.
  case unavailable = "503"
}
