import CPatchbayPlugin
import Foundation
import Logging
import PatchbayValues
import PatchbayWire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What a supervised instance tells the hub.
package protocol InstanceSupervisorDelegate: AnyObject, Sendable {
  /// `batch` collects the inputs routed on the way, to be sent together after the read.
  /// `routes`: those from `port` (`installOutputRoutes`), nil when not known by index.
  func instance(
    _ instance: InstanceSupervisor, published value: Value, on port: String, kind: PortKind, routes: [InternedRoute]?,
    hops: UInt8, batch: DeliveryBatch?)
  /// The instance declared its ports for the first time after the hub stopped waiting for it
  /// (its first attempts failed, or it was slow): its routes can be installed now, and then
  /// the delegate calls `allowStart()`.
  func instanceCreatedLate(_ instance: InstanceSupervisor)
  /// One of the instance's heartbeat deadlines (`nextTickDue`) may have moved earlier.
  func instanceTickDueChanged(_ instance: InstanceSupervisor)
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
  /// The hub. Strong, not weak (issue 44): a weak reference gives the hub a side table, and
  /// each hop's retain and release of it took the slow path. The hub lives as long as its
  /// process, so the cycle (hub, its instances, the hub) costs nothing there; a test's stopped
  /// hub stays in memory until the test process ends.
  let delegate: any InstanceSupervisorDelegate
  /// The one owner of the supervisor's mutable state (the extensions in the files beside this
  /// one, by concept: host messages, heartbeats, inputs, status).
  let state: Guarded<State>
  /// Moves (under `state`'s lock) whenever the process declares ports other than before: an
  /// `InputPort` interned against older ports is then looked up by name again.
  package let portsGeneration = Atomic(0)

  struct State {
    var process: (any PluginChannel)?
    var phase = InstancePhase.stopped
    var ports: [PortDescriptor] = []
    /// The routes from each output, by its index in `ports` (interned when routes are
    /// installed): a published value finds its routes by the index it came with, not by a
    /// hash of names. nil before routes are installed, and once the process declared other ports.
    var outputRoutes: [[InternedRoute]]?
    /// The plugin has declared its ports at least once (an instance may have none).
    var created = false
    var startedAt: Double?
    var planner: RestartPlanner
    var heartbeat = HeartbeatMonitor()
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
    var inFlight = InFlightInputs()
    var controlRefusalLoggedAt: Double?
    /// The sandbox the current (or last) process was given, and what its host confirmed.
    var sandboxPolicy: SandboxPolicy?
    var confinement: (abi: Int, network: Bool, signals: Bool, seccomp: Bool)?
    var generation = 0
    /// How long the last process ran after it was started; a long enough run resets back-off.
    var lastRunDuration: Double?
    /// The launcher is starting a process and has not returned it yet.
    var launching = false
    /// An exit reported in that window (the process's waiter starts inside the launcher): it is
    /// handled once the process is recorded, not dropped as a stranger's, which left a dead
    /// process as the current one and every later stop waiting out its timeouts.
    var exitDuringLaunch: (channel: any PluginChannel, reason: ExitReason)?
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
    let now = clock.now
    let refused = state.change { state -> Bool in
      guard !state.retired else { return true }
      state.phase = .starting
      state.deliberateStop = false
      state.holdStart = holdStart
      state.heartbeat.processBegan(now: now)
      state.hostVerdict = nil
      state.generation += 1
      state.inFlight.processBegan()
      state.sandboxPolicy = policy
      state.confinement = nil
      state.launching = true
      state.exitDuringLaunch = nil
      return false
    }
    guard !refused else { return }
    inbox.expectOpening()
    do {
      let process = try launcher(locator.hostExecutable, spec.name, arguments, spec.supervision, self)
      let spawned = clock.now
      let earlyExit = state.change { state -> ExitReason? in
        state.process = process
        state.launching = false
        // Heartbeats cover every phase: a create() or start() that never returns is a hang too.
        state.heartbeat.started(now: spawned)
        defer { state.exitDuringLaunch = nil }
        return state.exitDuringLaunch.flatMap { $0.channel === process ? $0.reason : nil }
      }
      if let earlyExit {
        pluginChannel(process, exited: earlyExit)
        return
      }
      heartbeatDeadlineChanged()
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
      state.change { $0.launching = false }
      logger.error("cannot start plugin host \(locator.hostExecutable): \(error)")
      scheduleRestart(after: .exited(code: 127))
    }
  }

  package var instanceStateDirectory: String { StateLayout.instanceDirectory(spec.name, in: stateDirectory) }

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
  func sendControl(_ message: HubMessage, to process: any PluginChannel) -> Bool {
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

  /// Ends the inbox's delivery thread (after `stop`), and lets go of the supervisors its
  /// interned routes hold (a route back into itself would otherwise keep it alive).
  package func shutdown() {
    inbox.close()
    state.withLock { $0.outputRoutes = nil }
  }

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

  /// What the plugin writes to its standard output and error, as lines of its own (the log
  /// handler escapes them: a plugin cannot forge a hub line). Within the crash-loop budget too.
  package func pluginChannel(_ process: any PluginChannel, wrote line: String, on stream: String) {
    guard restartLineAdmitted() else { return }
    logger.log(level: stream == "stderr" ? .warning : .info, "\(stream): \(line)")
  }

  package func pluginChannel(_ process: any PluginChannel, exited reason: ExitReason) {
    let (deliberate, current, alreadyFailed, verdict) = state.withLock { state in
      if state.launching, state.process == nil { state.exitDuringLaunch = (process, reason) }
      return (state.deliberateStop, state.process === process, state.phase == .failed, state.hostVerdict)
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
    // A crash loop's summary may be due from now on.
    if admission != .log { heartbeatDeadlineChanged() }
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
  func restartLineAdmitted() -> Bool { state.withLock { $0.crashLog.admitLine() } }

  /// The summary of a crash loop, once an interval (from the hub's ticker).
  func logCrashSummaryIfDue(now: Double) {
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
  /// is logged.
  private func recoverUnseenInputs(of process: any PluginChannel) {
    let leftovers = state.withLock { $0.inFlight.processEnded(ledger: process.inputLedger) }
    for input in leftovers.unseen.reversed() {
      inbox.putBack(port: input.port, kind: input.kind, value: input.value, hops: input.hops)
    }
    if let dying = leftovers.dying {
      logger.warning("the input it was handling when it ended (\(dying.port) \(dying.value)) is not retried")
    }
    if !leftovers.unseen.isEmpty {
      logger.info("\(leftovers.unseen.count) inputs it never took will go to the next process")
    }
  }

  /// Applies the restart policy, intensity limit and back-off after an unplanned exit.
  func scheduleRestart(after reason: ExitReason) {
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

  func markFailed(_ reason: String) {
    state.change { state in
      state.phase = .failed
      state.failure = reason
      state.failedSince = Date()
    }
    inbox.hold()
    logger.critical("failed: \(reason)")
  }
}
