import Dispatch

#if canImport(Glibc)
  import Glibc
#endif

/// The time the core runs on: restart back-off, heartbeats and hang detection, momentary
/// routes. The hub runs on `SystemClock`; the core's tests run a whole hub on a clock they
/// move by hand, so a 30 s back-off or a 15 s hang costs them no real time.
/// Blocking waits with a deadline (a stop's SIGTERM/SIGKILL timeouts, a producer waiting for
/// room) are condition waits on real time: they are bounds, not schedule.
package protocol HubClock: Sendable {
  /// Seconds on a monotonic scale (only differences mean anything).
  var now: Double { get }
  /// Runs `action` once, `delay` seconds from now, on a thread of the clock's.
  func schedule(after delay: Double, _ action: @escaping @Sendable () -> Void)
}

/// The monotonic clock of the machine, with Dispatch's timers.
package struct SystemClock: HubClock {
  private let timers = DispatchQueue(label: "patchbay.clock", attributes: .concurrent)

  package init() {}

  package var now: Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  package func schedule(after delay: Double, _ action: @escaping @Sendable () -> Void) {
    timers.asyncAfter(deadline: .now() + max(0, delay), execute: action)
  }
}
