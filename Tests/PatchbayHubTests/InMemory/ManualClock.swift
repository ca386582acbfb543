@testable import PatchbayCore

/// A clock the test moves by hand (like NIOEmbedded's event loop time): timers fire only in
/// `advance`, in order of their due times, each at its own time. A 30 s back-off or a 10 s
/// hang costs a test no real time.
final class ManualClock: HubClock {
  private let timeline = Guarded(Timeline())

  private struct Timeline {
    var now = 1_000.0
    var pending: [Timer] = []
    var scheduled = 0
  }

  private struct Timer {
    var due: Double
    var order: Int
    var action: @Sendable () -> Void
  }

  var now: Double { timeline.withLock { $0.now } }

  func schedule(after delay: Double, _ action: @escaping @Sendable () -> Void) {
    timeline.change { timeline in
      timeline.pending.append(Timer(due: timeline.now + max(0, delay), order: timeline.scheduled, action: action))
      timeline.scheduled += 1
    }
  }

  /// Moves time `seconds` forward. After each timer that fires, `settle` lets what the timer set
  /// off arrive (a heartbeat's answer) before time moves on, as on a machine with no delays.
  func advance(by seconds: Double, settle: () -> Void = {}) {
    let target = now + seconds
    while let timer = nextTimer(dueBy: target) {
      timer.action()
      settle()
    }
  }

  /// Whether a timer is pending for exactly `due` (what a test waits for before it moves time).
  func hasTimer(dueAt due: Double) -> Bool { timeline.withLock { $0.pending.contains { $0.due == due } } }

  private func nextTimer(dueBy target: Double) -> Timer? {
    timeline.change { timeline in
      let earliest = timeline.pending.indices.min { a, b in
        (timeline.pending[a].due, timeline.pending[a].order) < (timeline.pending[b].due, timeline.pending[b].order)
      }
      guard let earliest, timeline.pending[earliest].due <= target else {
        timeline.now = max(timeline.now, target)
        return nil
      }
      let timer = timeline.pending.remove(at: earliest)
      timeline.now = max(timeline.now, timer.due)
      return timer
    }
  }
}
