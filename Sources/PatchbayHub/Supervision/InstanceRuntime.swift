import DequeModule
import Foundation
import Logging
import PatchbayValues
import PatchbayWire

#if canImport(Glibc)
  import Glibc
#endif

/// What an instance tells the hub.
protocol InstanceRuntimeDelegate: AnyObject, Sendable {
  func instance(_ instance: InstanceRuntime, published value: Value, on port: PortDescriptor)
}

/// Supervises one plugin instance: starts its process, restarts it by policy with back-off
/// and an intensity limit, kills it when it stops answering, and feeds it from its inbox.
final class InstanceRuntime: PluginProcessDelegate, @unchecked Sendable {
  let spec: InstanceSpec
  let libraryPath: String?
  let locator: PluginLocator
  let stateDirectory: String
  let inbox: InstanceInbox
  let logger: Logger
  let clock: @Sendable () -> Double
  private weak var delegate: (any InstanceRuntimeDelegate)?
  /// Guards the state below; broadcast whenever the process, `created` or the phase changes,
  /// so that waiting (for an exit, for the ports) is on events, not on a polling loop.
  private let lock = NSCondition()
  private let timers = DispatchQueue(label: "patchbay.supervisor")

  // Guarded by `lock`.
  private var process: PluginProcess?
  private var phase = InstancePhase.stopped
  private var ports: [PortDescriptor] = []
  /// The plugin has declared its ports at least once (an instance may have none).
  private var created = false
  private var startedAt: Double?
  private var planner: RestartPlanner
  private var heartbeatSequence: UInt64 = 0
  private var heartbeatOutstandingSince: Double?
  private var lastHeartbeatSent: Double = 0
  private var deliberateStop = false
  private var holdStart = false
  private var failure: String?
  private var failedSince: Date?
  private var lastExit: String?
  private var restarts = 0
  private var messagesIn = 0
  private var messagesOut = 0
  private var drops = 0
  /// Calls of the plugin its host refused (bad values, wrong port or state), this process.
  private var refusals = 0
  /// How often a publish of this instance had to wait for a full consumer (back-pressure).
  private var backPressureWaits = 0
  private var backPressuredSince: Double?
  /// Inputs sent to the current process that it has not reported finished (`consumed`): given
  /// to the next process if this one dies, so an input in a dead process's socket is not lost.
  private var inFlight: Deque<InFlightInput> = []
  private var sentToProcess: UInt64 = 0

  struct InFlightInput {
    var sequence: UInt64
    var port: String
    var kind: PortKind
    var value: Value
  }
  /// Refusals of the processes before this one (the count in `status` spans restarts).
  private var refusalsBefore = 0
  private var generation = 0
  /// How long the last process ran after it was started; a long enough run resets back-off.
  private var lastRunDuration: Double?

  init(
    spec: InstanceSpec, libraryPath: String?, locator: PluginLocator, stateDirectory: String,
    delegate: any InstanceRuntimeDelegate, clock: @escaping @Sendable () -> Double = InstanceRuntime.monotonicSeconds
  ) {
    self.spec = spec
    self.libraryPath = libraryPath
    self.locator = locator
    self.stateDirectory = stateDirectory
    self.delegate = delegate
    self.clock = clock
    inbox = InstanceInbox(bound: spec.supervision.queueSize)
    planner = RestartPlanner(settings: spec.supervision)
    var logger = Logger(label: spec.name)
    logger.logLevel = Logger.Level(rawValue: spec.logLevel) ?? .info
    self.logger = logger
    let writer = Thread { [self] in deliverLoop() }
    writer.name = "patchbay-inbox-\(spec.name)"
    writer.start()
  }

  static let monotonicSeconds: @Sendable () -> Double = {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }

  // MARK: Lifecycle

  /// Starts the process. With `holdStart`, the instance is created but not started until
  /// `release()` (the hub first checks routes against the ports of every instance).
  func launch(holdStart: Bool = false) {
    guard let libraryPath else {
      markFailed("plugin '\(spec.plugin)' is not installed (no library on the plugin path)")
      return
    }
    let arguments = [
      "--memory-limit-mb", String(spec.supervision.memoryLimitMB), "--open-files", String(spec.supervision.openFiles),
    ]
    change {
      phase = .starting
      deliberateStop = false
      self.holdStart = holdStart
      heartbeatOutstandingSince = nil
      generation += 1
      sentToProcess = 0
    }
    do {
      let process = try PluginProcess.spawn(
        host: locator.hostExecutable, instance: spec.name, arguments: arguments, delegate: self)
      change {
        self.process = process
        // Heartbeats cover every phase: a create() or start() that never returns is a hang too.
        lastHeartbeatSent = clock()
      }
      process.send(.hello(protocolVersion: WireProtocol.version))
      try? FileManager.default.createDirectory(atPath: instanceStateDirectory, withIntermediateDirectories: true)
      process.send(
        .load(
          LoadRequest(
            libraryPath: libraryPath, instanceName: spec.name, configJSON: spec.pluginConfig.description,
            stateDirectory: instanceStateDirectory, logLevel: Self.pluginLogLevel(spec.logLevel))))
      logger.debug("started process \(process.pid)")
    } catch {
      logger.error("cannot start plugin host \(locator.hostExecutable): \(error)")
      scheduleRestart(after: .exited(code: 127))
    }
  }

  var instanceStateDirectory: String { stateDirectory + "/instances/" + spec.name }

  /// Lets a held instance start.
  func release() {
    let process: PluginProcess? = lock.withLock {
      holdStart = false
      return phase == .starting && created ? self.process : nil
    }
    process?.send(.start)
  }

  /// Stops the instance: stop message, then SIGTERM, then SIGKILL, each after the stop timeout.
  /// Blocks until the process is gone.
  func stop() {
    let process: PluginProcess? = change {
      deliberateStop = true
      if phase == .failed || phase == .stopped {
        phase = .stopped
        return nil
      }
      phase = .stopping
      return self.process
    }
    inbox.hold()
    guard let process else { return }
    process.send(.stop)
    let timeout = spec.supervision.stopTimeout
    for signal in [SIGTERM, SIGKILL] {
      if waitForExit(of: process, within: timeout) { return }
      logger.warning("did not stop within \(timeout) s; sending \(ExitReason.signalName(signal))")
      process.signal(signal)
    }
    _ = waitForExit(of: process, within: 10)
  }

  private func waitForExit(of process: PluginProcess, within seconds: Double) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    lock.lock()
    defer { lock.unlock() }
    while self.process === process {
      if !lock.wait(until: deadline) { return self.process !== process }
    }
    return true
  }

  /// Waits until the plugin declared its ports, or the instance failed or stopped.
  func waitUntilCreatedOrDown(until deadline: Date) {
    lock.lock()
    defer { lock.unlock() }
    while !created && phase != .failed && phase != .stopped {
      if !lock.wait(until: deadline) { return }
    }
  }

  /// Changes guarded state and wakes the waiters.
  private func change<Result>(_ body: () -> Result) -> Result {
    lock.lock()
    defer {
      lock.broadcast()
      lock.unlock()
    }
    return body()
  }

  /// Ends the inbox's delivery thread (after `stop`).
  func shutdown() { inbox.close() }

  /// `patchbay restart`: a fresh start, forgetting failures.
  func restartNow() {
    stop()
    lock.withLock {
      planner.reset()
      failure = nil
      failedSince = nil
    }
    launch()
  }

  // MARK: Process events

  func pluginProcess(_ process: PluginProcess, received message: HostMessage) {
    switch message {
    case .hello(let version, _):
      if version != WireProtocol.version {
        logger.error("plugin host speaks wire protocol \(version), the hub \(WireProtocol.version)")
        process.signal(SIGKILL)
      }
    case .created(let info, let ports):
      let hold = change {
        self.ports = ports
        created = true
        return holdStart
      }
      logger.info(
        "created: plugin \(info.name) \(info.version) (ABI \(info.abiMajor).\(info.abiMinor)), \(ports.count) ports")
      if !hold { process.send(.start) }
    case .started:
      change {
        phase = .running
        startedAt = clock()
        lastHeartbeatSent = clock()
      }
      logger.info("running (pid \(process.pid))")
      inbox.open(replayingState: true)
    case .publish(let index, let value):
      let port: PortDescriptor? = lock.withLock {
        guard ports.indices.contains(Int(index)), ports[Int(index)].direction == .output,
          ports[Int(index)].type == value.type
        else { return nil }
        messagesOut += 1
        return ports[Int(index)]
      }
      guard let port else {
        logger.error("published on port \(index), which is not an output of that type; ignored")
        return
      }
      delegate?.instance(self, published: value, on: port)
    case .log(let level, let text):
      logger.log(level: Self.hubLogLevel(level), "\(text)")
    case .heartbeat(let sequence):
      lock.withLock {
        if sequence == heartbeatSequence { heartbeatOutstandingSince = nil }
      }
    case .failed(let stage, _, let text):
      logger.error("\(stage.name) failed: \(text)")
      change { lastExit = "\(stage.name) failed: \(text)" }
      if stage == .load { markFailed("\(text)") }
    case .refusals(let total):
      change { refusals = Int(clamping: total) }

    case .described, .stopped:
      break
    }
  }

  func pluginProcess(_ process: PluginProcess, exited reason: ExitReason) {
    let (deliberate, current, alreadyFailed) = lock.withLock {
      (deliberateStop, self.process === process, phase == .failed)
    }
    guard current else { return }
    if process.escapedDescendantsKilled > 0 {
      logger.warning("killed \(process.escapedDescendantsKilled) processes the plugin had started and left behind")
    }
    inbox.hold()
    recoverUnseenInputs(of: process)
    change {
      self.process = nil
      refusalsBefore += refusals
      refusals = 0
      lastRunDuration = startedAt.map { clock() - $0 }
      startedAt = nil
    }
    if deliberate {
      change { phase = .stopped }
      logger.info("stopped (\(reason))")
      return
    }
    logger.error("plugin process \(process.pid) \(reason)")
    lock.withLock { lastExit = reason.description }
    if alreadyFailed { return }
    scheduleRestart(after: reason)
  }

  /// Inputs sent to a process that died: those it never took off its socket go to the next
  /// process, first; the one it died handling is not retried (it may be what killed it) and
  /// is logged. The host's ledger is untrusted, so its counts are clamped to what was sent.
  private func recoverUnseenInputs(of process: PluginProcess) {
    let (sent, pending) = lock.withLock { () -> (UInt64, Deque<InFlightInput>) in
      defer { inFlight.removeAll() }
      return (sentToProcess, inFlight)
    }
    guard !pending.isEmpty else { return }
    let ledger = process.inputLedger ?? (taken: 0, finished: 0)
    let taken = min(ledger.taken, sent)
    let finished = min(ledger.finished, taken)
    let unseen = pending.filter { $0.sequence > taken }
    for input in unseen.reversed() { inbox.putBack(port: input.port, kind: input.kind, value: input.value) }
    if let dying = pending.first(where: { $0.sequence == taken && taken > finished }) {
      logger.warning("the input it was handling when it ended (\(dying.port) \(dying.value)) is not retried")
    }
    if !unseen.isEmpty { logger.info("\(unseen.count) inputs it never took will go to the next process") }
  }

  /// Applies the restart policy, intensity limit and back-off after an unplanned exit.
  private func scheduleRestart(after reason: ExitReason) {
    let now = clock()
    let decision = lock.withLock {
      planner.decide(after: reason, ranFor: lastRunDuration, now: now, jitter: Double.random(in: 0.8...1.2))
    }
    switch decision {
    case .stayStopped:
      change { phase = .stopped }
      logger.info("ended normally; restart policy is transient, not restarting")
    case .fail(let reason):
      markFailed(reason)
    case .restart(let delay, let attempt):
      let generationAtSchedule = change {
        restarts += 1
        phase = .restarting
        return generation
      }
      logger.warning(
        "restarting in \(String(format: "%.2f", delay)) s (restart \(attempt) of at most \(spec.supervision.maxRestarts) within \(Int(spec.supervision.restartWindow)) s)"
      )
      timers.asyncAfter(deadline: .now() + delay) { [self] in
        let stillWanted = lock.withLock {
          phase == .restarting && generation == generationAtSchedule && !deliberateStop
        }
        if stillWanted { launch() }
      }
    }
  }

  private func markFailed(_ reason: String) {
    change {
      phase = .failed
      failure = reason
      failedSince = Date()
    }
    inbox.hold()
    logger.critical("failed: \(reason)")
  }

  // MARK: Heartbeat (called by the hub's ticker)

  func heartbeatTick() {
    let now = clock()
    let settings = spec.supervision
    let action: (PluginProcess, UInt64?, Double?, InstancePhase)? = lock.withLock {
      guard phase == .running || phase == .starting, let process else { return nil }
      // The hub itself holds its answers back (back-pressure): restart the hang clock.
      if backPressuredSince != nil {
        if heartbeatOutstandingSince != nil { heartbeatOutstandingSince = now }
        return nil
      }
      if let since = heartbeatOutstandingSince, now - since > settings.hangTimeout {
        heartbeatOutstandingSince = nil
        return (process, nil, now - since, phase)
      }
      guard heartbeatOutstandingSince == nil, now - lastHeartbeatSent >= settings.heartbeatInterval else { return nil }
      heartbeatSequence += 1
      heartbeatOutstandingSince = now
      lastHeartbeatSent = now
      return (process, heartbeatSequence, nil, phase)
    }
    guard let (process, sequence, hungFor, phase) = action else { return }
    if let sequence {
      process.send(.heartbeat(sequence: sequence))
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
  func deliver(_ value: Value, to port: PortDescriptor, from producer: InstanceRuntime? = nil) -> Bool {
    if inbox.claim(port: port.name, kind: port.kind, value: value) {
      transmit(port: port.name, value: value, blocking: false)
      return true
    }
    // An event from a plugin: back-pressure. The producer's reader thread (this one) waits for
    // room, so the hub stops reading that producer, its socket fills, and its `publish` slows
    // down; nothing is dropped while this consumer runs. It waits at most a hang timeout (the
    // consumer is then hung and the supervisor deals with it).
    if port.kind == .event, let producer {
      let deadline = Date().addingTimeInterval(spec.supervision.hangTimeout)
      producer.backPressure(begins: true)
      let admission = inbox.enqueueEvent(port: port.name, value: value, waitingUntil: deadline)
      producer.backPressure(begins: false)
      switch admission {
      case .queued: return true
      case .queuedAfterWaiting:
        producer.countBackPressure()
        return true
      case .dropped:
        lock.withLock { drops += 1 }
        return false
      }
    }
    let accepted = inbox.enqueue(port: port.name, kind: port.kind, value: value)
    if !accepted { lock.withLock { drops += 1 } }
    return accepted
  }

  /// The hub is not reading this instance's socket because a consumer of its events is full:
  /// its heartbeat answers wait unread behind its publishes, which is no hang.
  func backPressure(begins: Bool) {
    lock.withLock {
      backPressuredSince = begins ? clock() : nil
      if !begins, heartbeatOutstandingSince != nil { heartbeatOutstandingSince = clock() }
    }
  }

  func countBackPressure() { lock.withLock { backPressureWaits += 1 } }

  private func deliverLoop() {
    while let (portName, value) = inbox.next() {
      transmit(port: portName, value: value, blocking: true)
    }
  }

  /// Sends an input taken from the inbox to the process, or puts it back at the front of the
  /// line: for the delivery thread when the socket is full, for the next process when this
  /// one is gone.
  private func transmit(port portName: String, value: Value, blocking: Bool) {
    defer { inbox.finishSending() }
    let target: (PluginProcess, UInt32, PortKind)? = lock.withLock {
      guard let process, let index = ports.firstIndex(where: { $0.name == portName && $0.direction == .input })
      else { return nil }
      return (process, UInt32(index), ports[index].kind)
    }
    guard let (process, index, kind) = target else {
      logger.warning("input for unknown port '\(portName)' dropped")
      return
    }
    let message = HubMessage.input(port: index, value: value)
    switch blocking ? (process.send(message) ? .sent : .closed) : process.trySend(message) {
    case .sent:
      lock.withLock {
        messagesIn += 1
        if self.process === process, process.inputLedger != nil {
          sentToProcess += 1
          inFlight.append(InFlightInput(sequence: sentToProcess, port: portName, kind: kind, value: value))
          // Forget what the host has finished (its ledger), so the list stays short.
          let finished = process.inputLedger?.finished ?? 0
          while let first = inFlight.first, first.sequence <= finished { inFlight.removeFirst() }
        }
      }
    case .wouldBlock:
      inbox.putBack(port: portName, kind: kind, value: value)
    case .closed:
      // The process is gone; keep the input for the next one.
      inbox.hold()
      inbox.putBack(port: portName, kind: kind, value: value)
    }
  }

  // MARK: Introspection

  var declaredPorts: [PortDescriptor] { lock.withLock { ports } }
  var hasBeenCreated: Bool { lock.withLock { created } }
  var currentPhase: InstancePhase { lock.withLock { phase } }
  var pid: Int32? { lock.withLock { process?.pid } }

  func port(named name: String) -> PortDescriptor? { lock.withLock { ports.first { $0.name == name } } }

  func status() -> InstanceStatus {
    let depth = inbox.depth
    return lock.withLock {
      InstanceStatus(
        name: spec.name, plugin: spec.plugin, phase: phase, pid: process?.pid,
        uptimeSeconds: startedAt.map { clock() - $0 }, restarts: restarts, messagesIn: messagesIn,
        messagesOut: messagesOut, queueDepth: depth, drops: drops, refusals: refusalsBefore + refusals,
        backPressureWaits: backPressureWaits, peer: nil,
        lastExit: lastExit,
        failure: failure,
        failedSince: failedSince, ports: ports)
    }
  }

  static func pluginLogLevel(_ level: String) -> UInt8 {
    switch level {
    case "trace": 0
    case "debug": 1
    case "info": 2
    case "notice": 3
    case "warning": 4
    default: 5
    }
  }

  static func hubLogLevel(_ level: UInt8) -> Logger.Level {
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
