import Foundation

/// Requests in progress across all connections, and the bridge's limit on them (0: none).
/// A request over the limit still "leaves" when answered, so the count stays balanced.
final class ConcurrencyGauge: @unchecked Sendable {
  private let lock = NSLock()
  private var current = 0
  let limit: Int

  init(limit: Int) { self.limit = limit }

  /// Counts a request in; false when it is over the limit.
  func enter() -> Bool {
    lock.lock()
    defer { lock.unlock() }
    current += 1
    return limit == 0 || current <= limit
  }

  func leave() {
    lock.lock()
    defer { lock.unlock() }
    current -= 1
  }
}
