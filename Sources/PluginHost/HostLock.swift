import Synchronization

/// A plain lock for state shared with plugin threads: the standard library's Mutex (no
/// Foundation in the host), so the type is Sendable without an unchecked promise.
final class HostLock: Sendable {
  private let mutex = Mutex(())

  func withLock<R>(_ body: () throws -> R) rethrows -> R {
    try mutex.withLock { _ in try body() }
  }
}
