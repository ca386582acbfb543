/// What `status` and `/metrics` count for one instance, across its processes.
///
/// Some counts are the hub's own (messages, drops, restarts); others are what the plugin's
/// host reported for its current process (refusals, publish back-pressure, refused system
/// calls). Those come from an untrusted process: any number up to UInt64.max may arrive, so
/// every sum here saturates instead of trapping (a trap would take the whole hub down).
package struct InstanceCounters: Equatable, Sendable {
  package var restarts = 0
  package var messagesIn = 0
  package var messagesOut = 0
  package var drops = 0
  /// How often a publish of this instance had to wait for a full consumer (back-pressure).
  package var backPressureWaits = 0
  /// Control connections from this instance's processes, all refused.
  package var controlRefusals = 0

  /// A count the host reports for its current process, and the sum over the processes before.
  package struct Reported: Equatable, Sendable {
    package var current = 0
    package var before = 0

    /// The host's latest total for its current process (clamped into Int).
    package mutating func report(_ total: UInt64) { current = Int(clamping: total) }

    /// Over every process of the instance so far.
    package var total: Int { before.addingSaturated(current) }

    /// The current process ended: its count joins the earlier processes'.
    package mutating func processEnded() {
      before = total
      current = 0
    }
  }

  /// Calls of the plugin its host refused (bad values, wrong port or state).
  package var refusals = Reported()
  /// The host's back-pressure on publishes: BUSY answers, and waits for room.
  package var publishBusy = Reported()
  package var publishWaits = Reported()
  /// System calls the seccomp filter refused.
  package var refusedCalls = Reported()

  package init() {}

  /// The current process ended: what its host reported joins the earlier processes'.
  package mutating func processEnded() {
    refusals.processEnded()
    publishBusy.processEnded()
    publishWaits.processEnded()
    refusedCalls.processEnded()
  }

  /// Adds to one of the hub's own counts without ever trapping.
  package static func bump(_ count: inout Int, by amount: Int = 1) { count = count.addingSaturated(amount) }
}

extension Int {
  /// `self + other`, held at Int.max (or Int.min) instead of trapping on overflow.
  package func addingSaturated(_ other: Int) -> Int {
    let (sum, overflow) = addingReportingOverflow(other)
    guard overflow else { return sum }
    return other > 0 ? .max : .min
  }
}
