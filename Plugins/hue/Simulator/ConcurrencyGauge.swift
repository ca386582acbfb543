import Synchronization

/// Requests in progress across all connections, and the bridge's limit on them (0: none).
/// A request over the limit still "leaves" when answered, so the count stays balanced.
final class ConcurrencyGauge: Sendable {
  private let current = Mutex(0)
  let limit: Int

  init(limit: Int) { self.limit = limit }

  /// Counts a request in; false when it is over the limit.
  func enter() -> Bool {
    let count = current.withLock { count in
      count += 1
      return count
    }
    return limit == 0 || count <= limit
  }

  func leave() { current.withLock { $0 -= 1 } }
}
