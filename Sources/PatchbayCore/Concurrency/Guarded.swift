import Foundation

/// State that threads share behind one mutex and its condition variable: what the standard
/// library's `Mutex` is, plus waiting for the state to change (the supervisor waits for a
/// process to exit, producers wait for room in an inbox). Every access to the state goes through
/// a closure under the lock, so the classes that own one are `Sendable` without a promise.
package final class Guarded<State>: @unchecked Sendable {  // OS boundary: a pthread condition guards `state`.
  private let condition = NSCondition()
  /// Behind a pointer, not in a stored `var`: the lock already makes each access exclusive, and
  /// a class property would add a dynamic exclusivity check to every access (about 8 % of the
  /// hub's instructions per routed message, callgrind).
  private let state: UnsafeMutablePointer<State>

  package init(_ initial: State) {
    state = .allocate(capacity: 1)
    state.initialize(to: initial)
  }

  deinit {
    state.deinitialize(count: 1)
    state.deallocate()
  }

  /// Reads or changes the state under the lock.
  package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    condition.lock()
    defer { condition.unlock() }
    return try body(&state.pointee)
  }

  /// Changes the state and wakes every waiter.
  package func change<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    condition.lock()
    defer {
      condition.broadcast()
      condition.unlock()
    }
    return try body(&state.pointee)
  }

  /// Wakes one waiter (after a change made with `withLock`; a waiter re-checks under the lock,
  /// so waking outside it loses nothing).
  package func signal() { condition.signal() }

  /// Wakes every waiter.
  package func broadcast() { condition.broadcast() }

  /// What one look at the state decided.
  package enum Step<Result> {
    case done(Result)
    /// Sleep until woken (or the deadline), then look again.
    case wait
  }

  /// Looks at the state under the lock until `step` is done; between looks it sleeps on the
  /// condition. After the deadline passes, `step` gets `timedOut: true` once more and must end.
  package func wait<Result>(
    until deadline: Date? = nil, _ step: (inout State, _ timedOut: Bool) -> Step<Result>
  ) -> Result {
    condition.lock()
    defer { condition.unlock() }
    var timedOut = false
    while true {
      // Each look is its own access to the state: others change it while this thread sleeps.
      let decision = step(&state.pointee, timedOut)
      if case .done(let result) = decision { return result }
      precondition(!timedOut, "Guarded.wait: a step after the deadline must end the wait")
      if let deadline {
        timedOut = !condition.wait(until: deadline)
      } else {
        condition.wait()
      }
    }
  }
}
