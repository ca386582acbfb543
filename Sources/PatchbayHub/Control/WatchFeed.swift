import DequeModule
import PatchbayCore
import Synchronization

/// The lines on their way to one `patchbay watch` client. Routing threads only append (never
/// block); the connection takes them when the client's socket has room. A watcher that stops
/// reading (`watch | less`, paused) loses its oldest lines, and is told how many, instead of
/// stalling the routing thread that also reads the plugins' heartbeat answers (a stalled
/// watcher once got healthy plugins killed as hung).
final class WatchFeed: Sendable {
  private struct Lines {
    var queue: Deque<String> = []
    var dropped = 0
    var closed = false
    /// The connection was told there are lines and has not taken them all yet: one wake-up
    /// for a burst, not one per line.
    var announced = false
  }

  let bound: Int
  private let lines = Mutex(Lines())

  init(bound: Int = 4096) { self.bound = bound }

  /// Adds a line; `announce` runs when the feed had nothing announced (the connection then
  /// takes lines until `take` returns nil). False once the watcher is gone.
  func push(_ line: String, announce: () -> Void) -> Bool {
    let (open, wake) = lines.withLock { state -> (Bool, Bool) in
      guard !state.closed else { return (false, false) }
      if state.queue.count >= bound {
        state.queue.removeFirst()
        state.dropped += 1
      }
      state.queue.append(line)
      defer { state.announced = true }
      return (true, !state.announced)
    }
    if wake { announce() }
    return open
  }

  /// The next line to write (a notice first when lines were dropped); nil when there is none
  /// (the next `push` announces again) or the feed is closed.
  func take() -> String? {
    lines.withLock { state in
      if state.closed { return nil }
      if state.dropped > 0 {
        defer { state.dropped = 0 }
        return "# \(state.dropped) lines dropped: this watcher read too slowly"
      }
      guard let first = state.queue.popFirst() else {
        state.announced = false
        return nil
      }
      return first
    }
  }

  func close() { lines.withLock { $0.closed = true } }
}
