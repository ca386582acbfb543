/// Hang detection (`HeartbeatMonitor`), on the hub's ticker. The ticker wakes only when some
/// instance has something due (`nextTickDue`); whatever moves a deadline earlier outside a tick
/// (a new process, an answer, the end of back-pressure, a crash) tells the hub.
extension InstanceSupervisor {
  /// Sends or checks this instance's heartbeat; called by the hub's ticker when due.
  package func heartbeatTick() {
    let now = clock.now
    logCrashSummaryIfDue(now: now)
    let settings = spec.supervision
    // Read before the lock (shared memory the host writes): its progress on inputs.
    let inputsFinished = state.withLock { $0.process }?.inputLedger?.finished
    let due: (any PluginChannel, HeartbeatMonitor.Action, InstancePhase)? = state.withLock { state in
      guard state.phase == .running || state.phase == .starting, let process = state.process else { return nil }
      let action = state.heartbeat.tick(
        now: now, interval: settings.heartbeatInterval, hangTimeout: settings.hangTimeout,
        backPressured: state.backPressuredSince != nil, inputsFinished: inputsFinished)
      return action.map { (process, $0, state.phase) }
    }
    guard let (process, action, phase) = due else { return }
    switch action {
    case .send(let sequence):
      // Never blocks the ticker (every instance's heartbeats) on one full socket: a heartbeat
      // that does not fit is tried again on the next tick, its hang clock running (a socket
      // full for a whole hang timeout is a plugin that does not answer, as before).
      let fitted = sendControl(.heartbeat(sequence: sequence), to: process)
      state.withLock { state in
        if state.process === process { state.heartbeat.sent(sequence, fitted: fitted) }
      }
    case .hung(let seconds):
      let while_ = phase == .starting ? " while starting (create() or start() has not returned)" : ""
      logger.error("not answering heartbeats for \(Int(seconds)) s\(while_); killing process \(process.pid)")
      process.markHung(seconds: seconds)
      process.terminate()
    }
  }

  /// The earliest time `heartbeatTick` has something to do: a heartbeat to send or check, a
  /// crash-loop summary to log. Nil when nothing is due until the instance changes.
  package func nextTickDue(now: Double) -> Double? {
    let settings = spec.supervision
    return state.withLock { state -> Double? in
      let summary = state.crashLog.nextSummaryDue
      guard state.phase == .running || state.phase == .starting, state.process != nil else { return summary }
      let heartbeat = state.heartbeat.nextDue(
        now: now, interval: settings.heartbeatInterval, hangTimeout: settings.hangTimeout,
        backPressured: state.backPressuredSince != nil, retry: Self.heartbeatRetry)
      return [summary, heartbeat].compactMap { $0 }.min()
    }
  }

  /// A heartbeat that did not fit into a full socket is tried again this much later.
  package static let heartbeatRetry = 0.1

  /// A deadline may have moved earlier: the hub's ticker wakes for it. Never under `state`'s lock.
  func heartbeatDeadlineChanged() { delegate.instanceTickDueChanged(self) }
}
