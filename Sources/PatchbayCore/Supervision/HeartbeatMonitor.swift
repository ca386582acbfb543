/// Hang detection for one plugin process, on the hub's clock: a heartbeat goes out every
/// `interval`; one outstanding for longer than `hangTimeout` means the plugin context stopped
/// answering (a callback that never returns: create() and start() included). Inputs the host
/// finishes in the meantime prove the context alive too: a heartbeat can wait behind a socket
/// the hub keeps full of inputs for a slow consumer, and that consumer is not hung. A pure
/// value: the supervisor asks it on each tick what to do, sends, and tells it what happened.
package struct HeartbeatMonitor: Sendable, Equatable {
  package enum Action: Equatable, Sendable {
    /// Send heartbeat `sequence` (a new one, or one that did not fit into the socket before).
    case send(sequence: UInt64)
    /// No answer for `seconds`: the process is hung.
    case hung(seconds: Double)
  }

  private(set) var sequence: UInt64 = 0
  private var outstandingSince: Double?
  private var lastSent: Double = 0
  /// The outstanding heartbeat did not fit into the full socket yet: sent again each tick.
  private var unsent = false
  /// The host's count of finished inputs at the last tick (its ledger), nil before the first.
  private var inputsFinished: UInt64?

  package init() {}

  /// A new process starts (or reached `started`): the interval counts from `now`, nothing is
  /// outstanding.
  package mutating func processBegan(now: Double) {
    outstandingSince = nil
    unsent = false
    inputsFinished = nil
    lastSent = now
  }

  /// The process started running: the next heartbeat is an interval from now.
  package mutating func started(now: Double) { lastSent = now }

  /// What to do on a tick. While the hub itself holds the process's answers back
  /// (back-pressure: they wait unread behind its publishes), the hang clock restarts instead;
  /// it restarts too when the host finished inputs since the last tick (`inputsFinished`, its
  /// ledger's count: a callback returned, so the context runs).
  package mutating func tick(
    now: Double, interval: Double, hangTimeout: Double, backPressured: Bool, inputsFinished: UInt64? = nil
  ) -> Action? {
    if let finished = inputsFinished, finished != self.inputsFinished {
      if self.inputsFinished != nil, outstandingSince != nil { outstandingSince = now }
      self.inputsFinished = finished
    }
    if backPressured {
      if outstandingSince != nil { outstandingSince = now }
      return nil
    }
    if let since = outstandingSince, now - since > hangTimeout {
      outstandingSince = nil
      unsent = false
      return .hung(seconds: now - since)
    }
    if outstandingSince != nil { return unsent ? .send(sequence: sequence) : nil }
    guard now - lastSent >= interval else { return nil }
    sequence &+= 1
    outstandingSince = now
    lastSent = now
    return .send(sequence: sequence)
  }

  /// The earliest time `tick` can do something (the hub's ticker sleeps until then): the next
  /// heartbeat, the hang deadline of the outstanding one (`tick` says hung once past it), or
  /// `retry` for one that did not fit. Nil while back-pressured: `backPressureEnded` restarts
  /// the clock, and the supervisor asks again then.
  package func nextDue(now: Double, interval: Double, hangTimeout: Double, backPressured: Bool, retry: Double)
    -> Double?
  {
    if backPressured { return nil }
    if let since = outstandingSince { return unsent ? min(now + retry, since + hangTimeout) : since + hangTimeout }
    return lastSent + interval
  }

  /// Whether heartbeat `sequence` went out (false: the socket was full; tried again next tick).
  package mutating func sent(_ sequence: UInt64, fitted: Bool) {
    if sequence == self.sequence { unsent = !fitted }
  }

  /// The process answered heartbeat `sequence` (an old or made-up number changes nothing).
  package mutating func answered(_ sequence: UInt64) {
    if sequence == self.sequence { outstandingSince = nil }
  }

  /// The back-pressure that held the answers back ended: the hang clock starts again now.
  package mutating func backPressureEnded(now: Double) {
    if outstandingSince != nil { outstandingSince = now }
  }
}
