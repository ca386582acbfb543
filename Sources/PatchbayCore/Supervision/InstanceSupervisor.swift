import CPatchbayPlugin
import DequeModule
import Foundation
import Logging
import PatchbayValues
import PatchbayWire

#if canImport(Glibc)
  import Glibc
#endif

/// What a supervised instance tells the hub.
package protocol InstanceSupervisorDelegate: AnyObject, Sendable {
  /// `batch` collects the inputs routed on the way, to be sent together after the read.
  func instance(
    _ instance: InstanceSupervisor, published value: Value, on port: PortDescriptor, hops: UInt8,
    batch: DeliveryBatch?)
  /// The instance declared its ports for the first time after the hub stopped waiting for it
  /// (its first attempts failed, or it was slow): its routes can be installed now, and then
  /// the delegate calls `allowStart()`.
  func instanceCreatedLate(_ instance: InstanceSupervisor)
}

/// Supervises one plugin instance: starts its process, restarts it by policy with back-off
/// and an intensity limit, kills it when it stops answering, and feeds it from its inbox.
/// Its state has one owner, `state` (a mutex with a condition: waiting for an exit or for
/// the ports is on events, never on a polling loop); process threads, the hub's ticker and
/// control requests all go through it.
package final class InstanceSupervisor: PluginChannelDelegate, Sendable {
  package let spec: InstanceSpec
  package let libraryPath: String?
  package let locator: PluginLocator
  package let stateDirectory: String
  package let inbox: InstanceInbox
  package let logger: Logger
  package let clock: any HubClock
  package let launcher: PluginLauncher
  private weak let delegate: (any InstanceSupervisorDelegate)?
  private let state: Guarded<State>

  private struct State {
    var process: (any PluginChannel)?
    var phase = InstancePhase.stopped
    var ports: [PortDescriptor] = []
    /// The plugin has declared its ports at least once (an instance may have none).
    var created = false
    var startedAt: Double?
    var planner: RestartPlanner
    var heartbeatSequence: UInt64 = 0
    var heartbeatOutstandingSince: Double?
    var lastHeartbeatSent: Double = 0
    /// The outstanding heartbeat did not fit into the full socket yet: sent again each tick.
    var heartbeatUnsent = false
    var deliberateStop = false
    /// The hub is stopping (or gave up starting): nothing launches this instance again.
    var retired = false
    /// A process of this instance ended (start waits no longer for it: starts are independent).
    var exitsSeen = 0
    /// What the host itself said about why it is ending (over the wire; its exit status alone
    /// proves nothing, a plugin can call exit() with any number).
    var hostVerdict: String?
    /// Crash loops are summarised instead of logged line by line.
    var crashLog = CrashLogBudget()
    var holdStart = false
    var failure: String?
    var failedSince: Date?
    var lastExit: String?
    /// What status counts; the host-reported counts saturate (they are untrusted).
    var counters = InstanceCounters()
    var backPressuredSince: Double?
    /// Inputs sent to the current process that it has not reported finished (`consumed`): given
    /// to the next process if this one dies, so an input in a dead process's socket is not lost.
    var inFlight: Deque<InFlightInput> = []
    var sentToProcess: UInt64 = 0
    var controlRefusalLoggedAt: Double?
    /// The sandbox the current (or last) process was given, and what its host confirmed.
    var sandboxPolicy: SandboxPolicy?
    var confinement: (abi: Int, network: Bool, signals: Bool, seccomp: Bool)?
    var generation = 0
    /// How long the last process ran after it was started; a long enough run resets back-off.
    var lastRunDuration: Double?
  }

  package struct InFlightInput {
    var sequence: UInt64
    var port: String
    var kind: PortKind
    var value: Value
    var hops: UInt8
  }

  package init(
    spec: InstanceSpec, libraryPath: String?, locator: PluginLocator, stateDirectory: String,
    delegate: any InstanceSupervisorDelegate,
    clock: any HubClock = SystemClock(),
    launcher: @escaping PluginLauncher
  ) {
    self.launcher = launcher
    self.spec = spec
    self.libraryPath = libraryPath
    self.locator = locator
    self.stateDirectory = stateDirectory
    self.delegate = delegate
    self.clock = clock
    inbox = InstanceInbox(bound: spec.supervision.queueSize)
    state = Guarded(State(planner: RestartPlanner(settings: spec.supervision)))
    var logger = Logger(label: spec.name)
    logger.logLevel = Logger.Level(rawValue: spec.logLevel) ?? .info
    self.logger = logger
    if let note = RestartPlanner.clampNote(spec.supervision) { logger.warning("\(note)") }
    let writer = Thread { [self] in deliverLoop() }
    writer.name = "patchbay-inbox-\(spec.name)"
    writer.start()
  }

  // MARK: Lifecycle

  /// Starts the process. With `holdStart`, the instance is created but not started until
  /// `allowStart()` (the hub first checks routes against the ports of every instance).
  package func launch(holdStart: Bool = false) {
    guard let libraryPath else {
      markFailed("plugin '\(spec.plugin)' is not installed (no library on the plugin path)")
      return
    }
    if let problem = InstanceStateDirectory.prepare(instanceStateDirectory) {
      markFailed(problem)
      return
    }
    let policy = SandboxPolicy(spec: spec, libraryPath: libraryPath, stateDirectory: instanceStateDirectory)
    // Landlock grants only what exists: the state directory (prepared above), and the files the
    // plugin will write by its config (created empty), exist before the host starts.
    policy.createMissingOutputs()
    let arguments =
      [
        "--memory-limit-mb", String(spec.supervision.memoryLimitMB), "--open-files",
        String(spec.supervision.openFiles),
      ] + policy.hostArguments
    let refused = state.change { state -> Bool in
      guard !state.retired else { return true }
      state.phase = .starting
      state.deliberateStop = false
      state.holdStart = holdStart
      state.heartbeatOutstandingSince = nil
      state.heartbeatUnsent = false
      state.hostVerdict = nil
      state.generation += 1
      state.sentToProcess = 0
      state.sandboxPolicy = policy
      state.confinement = nil
      return false
    }
    guard !refused else { return }
    inbox.expectOpening()
    do {
      let process = try launcher(locator.hostExecutable, spec.name, arguments, spec.supervision, self)
      let now = clock.now
      state.change { state in
        state.process = process
        // Heartbeats cover every phase: a create() or start() that never returns is a hang too.
        state.lastHeartbeatSent = now
      }
      // A fresh socket has room for both; never a blocking send on the control path.
      sendControl(.hello(protocolVersion: WireProtocol.version), to: process)
      sendControl(
        .load(
          LoadRequest(
            libraryPath: libraryPath, instanceName: spec.name, configJSON: spec.pluginConfig.description,
            stateDirectory: instanceStateDirectory, logLevel: Self.pluginLogLevel(spec.logLevel))),
        to: process)
      if restartLineAdmitted() { logger.debug("started process \(process.pid)") }
    } catch {
      logger.error("cannot start plugin host \(locator.hostExecutable): \(error)")
      scheduleRestart(after: .exited(code: 127))
    }
  }

  package var instanceStateDirectory: String { stateDirectory + "/instances/" + spec.name }

  /// Lets a held instance start.
  package func allowStart() {
    let process: (any PluginChannel)? = state.withLock { state in
      state.holdStart = false
      return state.phase == .starting && state.created && !state.retired ? state.process : nil
    }
    if let process { sendControl(.start, to: process) }
  }

  /// Sends a control message without ever blocking on the plugin's socket (a plugin that stopped
  /// reading must not hold the hub): false when it did not fit or the process is gone.
  @discardableResult
  private func sendControl(_ message: HubMessage, to process: any PluginChannel) -> Bool {
    process.trySend(message) == .sent
  }

  /// Stops the instance for good (the hub stops, or gives up starting): no restart, no
  /// `allowStart`, no launch after this. Blocks until the process is gone (see `stop`).
  package func retire() {
    markRetired()
    stop()
  }

  /// No launch, restart or start after this; wakes whoever waits for it to be created.
  package func markRetired() { state.change { $0.retired = true } }

  /// Stops the instance: stop message, then SIGTERM, then SIGKILL, each after the stop timeout.
  /// Blocks until the process is gone, at most about twice the stop timeout: nothing here
  /// waits on the plugin's socket (a plugin that does not read gets SIGTERM at once).
  package func stop() {
    let process: (any PluginChannel)? = state.change { state in
      state.deliberateStop = true
      if state.phase == .failed || state.phase == .stopped {
        state.phase = .stopped
        return nil
      }
      state.phase = .stopping
      return state.process
    }
    inbox.hold()
    guard let process else { return }
    let timeout = spec.supervision.stopTimeout
    var signals = [SIGTERM, SIGKILL]
    if !sendControl(.stop, to: process) {
      // Its socket is full: it has not been reading (blocked in a callback), so it would not
      // see a stop message either.
      logger.warning("is not reading its inputs (its socket is full); sending SIGTERM")
      process.signal(SIGTERM)
      signals.removeFirst()
    }
    for signal in signals {
      if waitForExit(of: process, within: timeout) { return }
      logger.warning("did not stop within \(timeout) s; sending \(ExitReason.signalName(signal))")
      process.signal(signal)
    }
    if !waitForExit(of: process, within: 10) {
      logger.error("process \(process.pid) is still there 10 s after SIGKILL; giving up waiting for it")
    }
  }

  private func waitForExit(of process: any PluginChannel, within seconds: Double) -> Bool {
    state.wait(until: Date(timeIntervalSinceNow: seconds)) { state, timedOut in
      if state.process !== process { return .done(true) }
      return timedOut ? .done(false) : .wait
    }
  }

  /// Waits until the plugin declared its ports, or its first attempt ended (it failed, stopped,
  /// or waits to be restarted: the other instances do not wait for its restarts), or the
  /// instance was retired.
  package func waitUntilCreatedOrDown(until deadline: Date) {
    state.wait(until: deadline) { state, timedOut in
      state.created || state.phase == .failed || state.phase == .stopped || state.exitsSeen > 0 || state.retired
        || timedOut ? .done(()) : .wait
    }
  }

  /// Ends the inbox's delivery thread (after `stop`).
  package func shutdown() { inbox.close() }

  /// `patchbay restart`: a fresh start, forgetting failures.
  package func restartNow() {
    stop()
    state.withLock { state in
      state.planner.reset()
      state.failure = nil
      state.failedSince = nil
    }
    launch()
  }

  // MARK: Process events

  package func pluginChannel(_ process: any PluginChannel, received message: HostMessage) {
    handle(message, from: process, batch: nil)
  }

  /// One read's messages: the inputs their publishes route are sent per consumer together.
  package func pluginChannel(_ process: any PluginChannel, received messages: [HostMessage]) {
    // One message sends what it routes at once; a batch would only cost.
    guard messages.count > 1 else {
      for message in messages { handle(message, from: process, batch: nil) }
      return
    }
    let batch = DeliveryBatch()
    for message in messages { handle(message, from: process, batch: batch) }
    batch.flush()
  }

  private func handle(_ message: HostMessage, from process: any PluginChannel, batch: DeliveryBatch?) {
    switch message {
    case .hello(let version, _):
      if version != WireProtocol.version {
        logger.error("plugin host speaks wire protocol \(version), the hub \(WireProtocol.version)")
        process.signal(SIGKILL)
      }
    case .created(let info, var ports):
      for refusal in Self.dropUnfitAttributes(of: &ports) { logger.warning("\(refusal); attribute ignored") }
      let (hold, late) = state.change { state in
        // Created for the first time by a restart, after the hub (or a reload) stopped waiting.
        let late = !state.created && !state.holdStart
        state.ports = ports
        state.created = true
        return (state.holdStart || state.retired, late)
      }
      if restartLineAdmitted() {
        logger.info(
          "created: plugin \(info.name) \(info.version) (ABI \(info.abiMajor).\(info.abiMinor)), \(ports.count) ports")
      }
      // Late: the hub installs its routes first, then lets it start.
      if late, let delegate {
        delegate.instanceCreatedLate(self)
      } else if !hold {
        sendControl(.start, to: process)
      }
    case .started:
      let now = clock.now
      state.change { state in
        state.phase = .running
        state.startedAt = now
        state.lastHeartbeatSent = now
      }
      if restartLineAdmitted() { logger.info("running (pid \(process.pid))") }
      inbox.open(replayingState: true)
    case .publish(let index, let value, let hops):
      let port: PortDescriptor? = state.withLock { state in
        let ports = state.ports
        guard ports.indices.contains(Int(index)), ports[Int(index)].direction == .output,
          ports[Int(index)].type == value.type
        else { return nil }
        InstanceCounters.bump(&state.counters.messagesOut)
        return ports[Int(index)]
      }
      guard let port else {
        logger.error("published on port \(index), which is not an output of that type; ignored")
        return
      }
      delegate?.instance(self, published: value, on: port, hops: hops, batch: batch)
      // The device's own state of an input (ABI 1.2): a restarted process gets it, not an older command.
      if let mirrored = port.mirrors { inbox.follow(port: mirrored, value: value) }
    case .log(let level, let text):
      if restartLineAdmitted() { logger.log(level: Self.hubLogLevel(level), "\(text)") }
    case .heartbeat(let sequence):
      state.withLock { state in
        if sequence == state.heartbeatSequence { state.heartbeatOutstandingSince = nil }
      }
    case .failed(let stage, let status, let text):
      let verdict = stage == .fault ? "plugin gave up: \(text)" : "\(stage.name) failed: \(text)"
      if restartLineAdmitted() { logger.error("\(verdict)") }
      state.change {
        $0.lastExit = verdict
        $0.hostVerdict = verdict
      }
      if stage == .load {
        markFailed("\(text)")
      } else if stage == .create, status == PB_ERR_INVALID_CONFIG {
        // The plugin refused its config: the same config would be refused again.
        markFailed(
          "create() refused the config of [instances.\(spec.name)]: \(text); not retried until the config changes")
      }
    case .refusals(let total):
      state.change { $0.counters.refusals.report(total) }
    case .publishPressure(let busy, let waits):
      state.change {
        $0.counters.publishBusy.report(busy)
        $0.counters.publishWaits.report(waits)
      }

    case .confined(let abi, let network, let signals, let seccomp):
      state.change { $0.confinement = (Int(abi), network, signals, seccomp) }
    case .refusedCalls(let total):
      state.change { $0.counters.refusedCalls.report(total) }
    case .described, .stopped, .retired:
      break
    }
  }

  /// What the plugin writes to its standard output and error, as lines of its own (the log
  /// handler escapes them: a plugin cannot forge a hub line). Within the crash-loop budget too.
  package func pluginChannel(_ process: any PluginChannel, wrote line: String, on stream: String) {
    guard restartLineAdmitted() else { return }
    logger.log(level: stream == "stderr" ? .warning : .info, "\(stream): \(line)")
  }

  package func pluginChannel(_ process: any PluginChannel, exited reason: ExitReason) {
    let (deliberate, current, alreadyFailed, verdict) = state.withLock { state in
      (state.deliberateStop, state.process === process, state.phase == .failed, state.hostVerdict)
    }
    guard current else { return }
    // An exit status means only what the host said over the wire before it ended; otherwise
    // it is the plugin's own exit() (any number).
    let ending: String
    if case .exited(let code) = reason, let verdict {
      ending = "\(verdict) (exit status \(code))"
    } else {
      ending = reason.description
    }
    if process.escapedDescendantsKilled > 0 {
      logger.warning("killed \(process.escapedDescendantsKilled) processes the plugin had started and left behind")
    }
    if process.inheritedZombiesReaped > 0 {
      logger.warning(
        "reaped \(process.inheritedZombiesReaped) ended processes the plugin had started and never waited for")
    }
    inbox.hold()
    recoverUnseenInputs(of: process)
    let now = clock.now
    state.change { state in
      state.process = nil
      state.counters.processEnded()
      state.lastRunDuration = state.startedAt.map { now - $0 }
      state.startedAt = nil
      state.exitsSeen += 1
    }
    if deliberate {
      state.change { $0.phase = .stopped }
      logger.info("stopped (\(ending))")
      return
    }
    let admission = state.withLock { state in
      state.lastExit = ending
      return state.crashLog.crash(now: now, reason: ending)
    }
    switch admission {
    case .log:
      logger.error("plugin process \(process.pid) ended: \(ending)")
    case .logAndSummariseFromNow(let count, let seconds):
      logger.error("plugin process \(process.pid) ended: \(ending)")
      logger.error(
        "crashed \(count) times within \(Int(seconds)) s; further crashes and restarts are summarised once every \(Int(CrashLogBudget.interval)) s"
      )
    case .count:
      break
    }
    if alreadyFailed { return }
    scheduleRestart(after: reason)
  }

  /// False while a crash loop is summarised: restart chatter (and the plugin's lines) is counted.
  private func restartLineAdmitted() -> Bool { state.withLock { $0.crashLog.admitLine() } }

  /// The summary of a crash loop, once an interval (from the hub's ticker).
  private func logCrashSummaryIfDue(now: Double) {
    guard let summary = state.withLock({ $0.crashLog.dueSummary(now: now) }) else { return }
    let phase = currentPhase
    let seconds = Int(summary.seconds.rounded())
    if summary.crashes > 0 {
      logger.warning(
        "crashed \(summary.crashes) more times in the last \(seconds) s (last: \(summary.lastReason)); \(summary.lines) lines about it suppressed; now \(phase)"
      )
    } else {
      logger.notice(
        "no crash in the last \(seconds) s (\(summary.lines) lines suppressed); crashes are logged in full again")
    }
  }

  /// Inputs sent to a process that died: those it never took off its socket go to the next
  /// process, first; the one it died handling is not retried (it may be what killed it) and
  /// is logged. The host's ledger is untrusted, so its counts are clamped to what was sent.
  private func recoverUnseenInputs(of process: any PluginChannel) {
    let (sent, pending) = state.withLock { state -> (UInt64, Deque<InFlightInput>) in
      defer { state.inFlight.removeAll() }
      return (state.sentToProcess, state.inFlight)
    }
    guard !pending.isEmpty else { return }
    let ledger = process.inputLedger ?? (taken: 0, finished: 0)
    let taken = min(ledger.taken, sent)
    let finished = min(ledger.finished, taken)
    let unseen = pending.filter { $0.sequence > taken }
    for input in unseen.reversed() {
      inbox.putBack(port: input.port, kind: input.kind, value: input.value, hops: input.hops)
    }
    if let dying = pending.first(where: { $0.sequence == taken && taken > finished }) {
      logger.warning("the input it was handling when it ended (\(dying.port) \(dying.value)) is not retried")
    }
    if !unseen.isEmpty { logger.info("\(unseen.count) inputs it never took will go to the next process") }
  }

  /// Applies the restart policy, intensity limit and back-off after an unplanned exit.
  private func scheduleRestart(after reason: ExitReason) {
    let now = clock.now
    let decision = state.withLock { state in
      state.planner.decide(after: reason, ranFor: state.lastRunDuration, now: now, jitter: Double.random(in: 0.8...1.2))
    }
    switch decision {
    case .stayStopped:
      state.change { $0.phase = .stopped }
      logger.info("ended normally; restart policy is transient, not restarting")
    case .fail(let reason):
      markFailed(reason)
    case .restart(let delay, let attempt):
      if restartLineAdmitted() {
        logger.warning(
          "restarting in \(String(format: "%.2f", delay)) s (restart \(attempt) of at most \(spec.supervision.maxRestarts) within \(Int(spec.supervision.restartWindow)) s)"
        )
      }
      // Scheduled in the same step as the phase changes: whoever sees `restarting` also finds
      // the restart on the clock (scheduling only enqueues; the timer takes the lock later).
      state.change { state in
        InstanceCounters.bump(&state.counters.restarts)
        state.phase = .restarting
        let generationAtSchedule = state.generation
        clock.schedule(after: delay) { [self] in
          let stillWanted = self.state.withLock { state in
            state.phase == .restarting && state.generation == generationAtSchedule && !state.deliberateStop
              && !state.retired
          }
          if stillWanted { launch() }
        }
      }
    }
  }

  private func markFailed(_ reason: String) {
    state.change { state in
      state.phase = .failed
      state.failure = reason
      state.failedSince = Date()
    }
    inbox.hold()
    logger.critical("failed: \(reason)")
  }

  /// The plugin host is not trusted: a status role or mirrored input that does not fit its port
  /// (which the host refuses in add_port) is dropped here too, with what was wrong.
  package static func dropUnfitAttributes(of ports: inout [PortDescriptor]) -> [String] {
    var refusals: [String] = []
    var peer: String?
    for index in ports.indices {
      let port = ports[index]
      if let mirrors = port.mirrors,
        !ports.contains(where: {
          $0.name == mirrors && $0.direction == .input && $0.kind == .state && $0.type == port.type
        }) || port.direction != .output
      {
        refusals.append("port '\(port.name)' cannot mirror '\(mirrors)'")
        ports[index].mirrors = nil
      }
      if let role = port.statusRole, !role.fits(port) || (role == .peer && peer != nil) {
        refusals.append("port '\(port.name)' cannot be shown in status as \(role)")
        ports[index].statusRole = nil
      } else if port.statusRole == .peer {
        peer = port.name
      }
    }
    return refusals
  }

  // MARK: Heartbeat (called by the hub's ticker)

  package func heartbeatTick() {
    let now = clock.now
    logCrashSummaryIfDue(now: now)
    let settings = spec.supervision
    let action: (any PluginChannel, UInt64?, Double?, InstancePhase)? = state.withLock { state in
      guard state.phase == .running || state.phase == .starting, let process = state.process else { return nil }
      // The hub itself holds its answers back (back-pressure): restart the hang clock.
      if state.backPressuredSince != nil {
        if state.heartbeatOutstandingSince != nil { state.heartbeatOutstandingSince = now }
        return nil
      }
      if let since = state.heartbeatOutstandingSince, now - since > settings.hangTimeout {
        state.heartbeatOutstandingSince = nil
        state.heartbeatUnsent = false
        return (process, nil, now - since, state.phase)
      }
      if state.heartbeatOutstandingSince != nil, state.heartbeatUnsent {
        return (process, state.heartbeatSequence, nil, state.phase)
      }
      guard state.heartbeatOutstandingSince == nil, now - state.lastHeartbeatSent >= settings.heartbeatInterval
      else { return nil }
      state.heartbeatSequence += 1
      state.heartbeatOutstandingSince = now
      state.lastHeartbeatSent = now
      return (process, state.heartbeatSequence, nil, state.phase)
    }
    guard let (process, sequence, hungFor, phase) = action else { return }
    if let sequence {
      // Never blocks the ticker (every instance's heartbeats) on one full socket: a heartbeat
      // that does not fit is tried again on the next tick, its hang clock running (a socket
      // full for a whole hang timeout is a plugin that does not answer, as before).
      let sent = sendControl(.heartbeat(sequence: sequence), to: process)
      state.withLock { state in
        if state.process === process, state.heartbeatSequence == sequence { state.heartbeatUnsent = !sent }
      }
    } else if let hungFor {
      let while_ = phase == .starting ? " while starting (create() or start() has not returned)" : ""
      logger.error("not answering heartbeats for \(Int(hungFor)) s\(while_); killing process \(process.pid)")
      process.markHung(seconds: hungFor)
      process.terminate()
    }
  }

  // MARK: Inputs

  /// Routes a value to input `port`; false if it was dropped (queue full). When nothing is
  /// queued or on its way, the calling thread (the publisher's reader) sends it itself: one
  /// thread hand-off less per hop (docs/BENCHMARKS.md). It never blocks on a full socket;
  /// then the queue and its delivery thread take over.
  /// With a `batch` (a reader's), the value joins it instead and is sent with the others.
  package func deliver(
    _ value: Value, to port: PortDescriptor, from producer: InstanceSupervisor? = nil, batch: DeliveryBatch? = nil,
    hops: UInt8 = 1
  ) -> Bool {
    if let batch {
      let claimed =
        batch.holdsClaim(of: self)
        ? inbox.extendClaim(port: port.name, kind: port.kind, value: value)
        : inbox.claim(port: port.name, kind: port.kind, value: value)
      if claimed {
        batch.add(value, port: port.name, kind: port.kind, hops: hops, for: self)
        return true
      }
      // What follows may wait for room: the claims the batch holds must not wait with it.
      batch.flush()
    }
    if inbox.claim(port: port.name, kind: port.kind, value: value) {
      transmit([DeliveryBatch.Input(port: port.name, kind: port.kind, value: value, hops: hops)])
      return true
    }
    // An event from a plugin: back-pressure. The producer's reader thread (this one) waits for
    // room, so the hub stops reading that producer, its socket fills, and its `publish` slows
    // down; nothing is dropped while this consumer runs. It waits at most a hang timeout (the
    // consumer is then hung and the supervisor deals with it).
    if port.kind == .event, let producer {
      let deadline = Date().addingTimeInterval(spec.supervision.hangTimeout)
      producer.backPressure(begins: true)
      let admission = inbox.enqueueEvent(port: port.name, value: value, hops: hops, waitingUntil: deadline)
      producer.backPressure(begins: false)
      switch admission {
      case .queued: return true
      case .queuedAfterWaiting:
        producer.countBackPressure()
        return true
      case .dropped:
        state.withLock { InstanceCounters.bump(&$0.counters.drops) }
        return false
      }
    }
    let accepted = inbox.enqueue(port: port.name, kind: port.kind, value: value, hops: hops)
    if !accepted { state.withLock { InstanceCounters.bump(&$0.counters.drops) } }
    return accepted
  }

  /// The hub is not reading this instance's socket because a consumer of its events is full:
  /// its heartbeat answers wait unread behind its publishes, which is no hang.
  package func backPressure(begins: Bool) {
    let now = clock.now
    state.withLock { state in
      state.backPressuredSince = begins ? now : nil
      if !begins, state.heartbeatOutstandingSince != nil { state.heartbeatOutstandingSince = now }
    }
  }

  package func countBackPressure() { state.withLock { InstanceCounters.bump(&$0.counters.backPressureWaits) } }

  private func deliverLoop() {
    while let inputs = inbox.next(limit: PacketSocket.framesPerCall) {
      transmit(inputs, blocking: true)
    }
  }

  /// Sends inputs taken for this instance (claimed by the thread that routed them, alone or
  /// in a reader's batch, or taken from the inbox by the delivery thread, which alone may
  /// block) in as few system calls as the channel can. The one way inputs reach a process:
  /// what is sent is remembered until the host has finished it; what does not fit, or finds
  /// the process gone, goes back to the front of the line in order (for the delivery thread,
  /// or for the next process); an input for a port the process does not declare is dropped.
  package func transmit(_ inputs: [DeliveryBatch.Input], blocking: Bool = false) {
    defer { inbox.finishSending() }
    var messages: [HubMessage] = []
    messages.reserveCapacity(inputs.count)
    var unknown: [Int] = []
    let process: (any PluginChannel)? = state.withLock { state in
      guard let process = state.process else { return nil }
      for (position, input) in inputs.enumerated() {
        if let index = state.ports.firstIndex(where: { $0.name == input.port && $0.direction == .input }) {
          messages.append(.input(port: UInt32(index), value: input.value, hops: input.hops))
        } else {
          unknown.append(position)
        }
      }
      return process
    }
    guard let process else {
      inbox.hold()
      for input in inputs.reversed() {
        inbox.putBack(port: input.port, kind: input.kind, value: input.value, hops: input.hops)
      }
      return
    }
    // Ports come from the consumer's declaration, so an unknown one is a route compiled
    // against older ports: such inputs are left out.
    var inputs = inputs
    if !unknown.isEmpty {
      let names = Set(unknown.map { inputs[$0].port }).sorted().joined(separator: ", ")
      logger.warning("\(unknown.count) inputs for ports it does not declare (\(names)) dropped")
      inputs = inputs.enumerated().filter { !unknown.contains($0.offset) }.map(\.element)
    }
    let sent: Int?
    switch messages.count {
    case 0: sent = 0
    case 1 where !blocking:
      // One input (the common hop): no array of frames for it.
      switch process.trySend(messages[0]) {
      case .sent: sent = 1
      case .wouldBlock: sent = 0
      case .closed: sent = nil
      }
    default: sent = blocking ? process.send(messages) : process.trySend(messages)
    }
    let count = sent ?? 0
    if count > 0 {
      let ledger = process.inputLedger
      state.withLock { state in
        InstanceCounters.bump(&state.counters.messagesIn, by: count)
        guard state.process === process, let ledger else { return }
        for input in inputs.prefix(count) {
          state.sentToProcess += 1
          state.inFlight.append(
            InFlightInput(
              sequence: state.sentToProcess, port: input.port, kind: input.kind, value: input.value, hops: input.hops))
        }
        // Forget what the host has finished (its ledger), so the list stays short.
        while let first = state.inFlight.first, first.sequence <= ledger.finished { state.inFlight.removeFirst() }
      }
    }
    // The socket is full (the delivery thread sends the rest) or the process is gone (the next
    // one gets them).
    if sent == nil { inbox.hold() }
    for input in inputs.dropFirst(count).reversed() {
      inbox.putBack(port: input.port, kind: input.kind, value: input.value, hops: input.hops)
    }
  }

  // MARK: Introspection

  package var declaredPorts: [PortDescriptor] { state.withLock { $0.ports } }
  package var hasBeenCreated: Bool { state.withLock { $0.created } }
  package var currentPhase: InstancePhase { state.withLock { $0.phase } }
  package var pid: Int32? { state.withLock { $0.process?.pid } }

  package func port(named name: String) -> PortDescriptor? { state.withLock { $0.ports.first { $0.name == name } } }

  package func status() -> InstanceStatus {
    let depth = inbox.depth
    let now = clock.now
    return state.withLock { state in
      let counters = state.counters
      return InstanceStatus(
        name: spec.name, plugin: spec.plugin, phase: state.phase, pid: state.process?.pid,
        uptimeSeconds: state.startedAt.map { now - $0 }, restarts: counters.restarts,
        messagesIn: counters.messagesIn, messagesOut: counters.messagesOut, queueDepth: depth, drops: counters.drops,
        refusals: counters.refusals.total, backPressureWaits: counters.backPressureWaits,
        publishBusy: counters.publishBusy.total, publishWaits: counters.publishWaits.total, peer: nil,
        lastExit: state.lastExit, failure: state.failure, failedSince: state.failedSince, ports: state.ports,
        controlRefusals: counters.controlRefusals == 0 ? nil : counters.controlRefusals,
        containment: state.process?.containment,
        sandbox: state.sandboxPolicy.map { policy in
          SandboxStatus(
            policy: policy, landlockABI: state.confinement?.abi, networkConfined: state.confinement?.network ?? false,
            signalsScoped: state.confinement?.signals ?? false, seccomp: state.confinement?.seccomp ?? false,
            refusedCalls: counters.refusedCalls.total)
        })
    }
  }

  /// The control server refused a connection from `peer`, this instance's process or one it
  /// started. Logged at most once a minute (a plugin may try in a loop), counted always.
  package func noteControlRefusal(peer: Int32) {
    let now = clock.now
    let count: Int? = state.withLock { state in
      InstanceCounters.bump(&state.counters.controlRefusals)
      if let logged = state.controlRefusalLoggedAt, now - logged < 60 { return nil }
      state.controlRefusalLoggedAt = now
      return state.counters.controlRefusals
    }
    guard let count else { return }
    let message = "refused a control connection from process \(peer) of this instance: the control socket"
    logger.warning("\(message) is not a plugin's (\(count) refused so far)")
  }

  package static func pluginLogLevel(_ level: String) -> UInt8 {
    switch level {
    case "trace": 0
    case "debug": 1
    case "info": 2
    case "notice": 3
    case "warning": 4
    default: 5
    }
  }

  package static func hubLogLevel(_ level: UInt8) -> Logger.Level {
    switch level {
    case 0: .trace
    case 1: .debug
    case 2: .info
    case 3: .notice
    case 4: .warning
    default: .error
    }
  }
}
