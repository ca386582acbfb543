/// Hang detection (`HeartbeatMonitor`), on the hub's ticker.
extension InstanceSupervisor {
  /// Sends or checks this instance's heartbeat; called by the hub's ticker every 0.1 s.
  package func heartbeatTick() {
    let now = clock.now
    logCrashSummaryIfDue(now: now)
    let settings = spec.supervision
    let due: (any PluginChannel, HeartbeatMonitor.Action, InstancePhase)? = state.withLock { state in
      guard state.phase == .running || state.phase == .starting, let process = state.process else { return nil }
      let action = state.heartbeat.tick(
        now: now, interval: settings.heartbeatInterval, hangTimeout: settings.hangTimeout,
        backPressured: state.backPressuredSince != nil)
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
}
