import DequeModule
import Foundation
import PatchbayCore
import Synchronization

/// The lines on their way to one `patchbay watch` client. Routing threads only append (never
/// block); the watcher's own thread writes. A watcher that stops reading (`watch | less`,
/// paused) loses its oldest lines, and is told how many, instead of stalling the routing thread
/// that also reads the plugins' heartbeat answers (a stalled watcher once got healthy plugins
/// killed as hung).
final class WatchFeed: Sendable {
  private struct Lines {
    var queue: Deque<String> = []
    var dropped = 0
    var closed = false
  }

  let bound: Int
  private let lines = Mutex(Lines())
  private let ready = DispatchSemaphore(value: 0)

  init(bound: Int = 4096) { self.bound = bound }

  /// Adds a line; false once the watcher is gone.
  func push(_ line: String) -> Bool {
    let open = lines.withLock { state -> Bool in
      guard !state.closed else { return false }
      if state.queue.count >= bound {
        state.queue.removeFirst()
        state.dropped += 1
      }
      state.queue.append(line)
      return true
    }
    if open { ready.signal() }
    return open
  }

  /// The next line to write (a notice first when lines were dropped); nil once closed.
  func next() -> String? {
    while true {
      ready.wait()
      let line: String?? = lines.withLock { state in
        if state.closed { return .some(nil) }
        if state.dropped > 0 {
          defer { state.dropped = 0 }
          // The notice takes the place of the signal the dropped line's push gave.
          return "# \(state.dropped) lines dropped: this watcher read too slowly"
        }
        guard let first = state.queue.popFirst() else { return .none }
        return first
      }
      switch line {
      case .some(let value): return value
      case .none: continue
      }
    }
  }

  func close() {
    lines.withLock { $0.closed = true }
    ready.signal()
  }
}
