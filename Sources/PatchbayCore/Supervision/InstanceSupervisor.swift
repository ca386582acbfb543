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
    var deliberateStop = false
    var holdStart = false
    var failure: String?
    var failedSince: Date?
    var lastExit: String?
    var restarts = 0
    var messagesIn = 0
    var messagesOut = 0
    var drops = 0
    /// Calls of the plugin its host refused (bad values, wrong port or state), this process.
    var refusals = 0
    /// How often a publish of this instance had to wait for a full consumer (back-pressure).
    var backPressureWaits = 0
    var backPressuredSince: Double?
    /// Inputs sent to the current process that it has not reported finished (`consumed`): given
    /// to the next process if this one dies, so an input in a dead process's socket is not lost.
    var inFlight: Deque<InFlightInput> = []
    var sentToProcess: UInt64 = 0
    /// Refusals of the processes before this one (the count in `status` spans restarts).
    var refusalsBefore = 0
    /// The host's back-pressure on this process's publishes (BUSY answers, waits for room), as
    /// it reported them, and the sum over the processes before it (like refusals).
    var publishBusy = 0
    var publishWaits = 0
    var publishBusyBefore = 0
    var publishWaitsBefore = 0
    /// The sandbox the current (or last) process was given, and what its host confirmed.
    var sandboxPolicy: SandboxPolicy?
    var confinement: (abi: Int, network: Bool, signals: Bool, seccomp: Bool)?
    var refusedCalls = 0
    var refusedCallsBefore = 0
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
    let policy = SandboxPolicy(spec: spec, libraryPath: libraryPath, stateDirectory: instanceStateDirectory)
    // Landlock grants only what exists: the state directory, and the files the plugin will
    // write by its config (created empty), exist before the host starts.
    try? FileManager.default.createDirectory(atPath: instanceStateDirectory, withIntermediateDirectories: true)
    policy.createMissingOutputs()
    let arguments =
      [
        "--memory-limit-mb", String(spec.supervision.memoryLimitMB), "--open-files",
        String(spec.supervision.openFiles),
      ] + policy.hostArguments
    state.change { state in
      state.phase = .starting
      state.deliberateStop = false
      state.holdStart = holdStart
      state.heartbeatOutstandingSince = nil
      state.generation += 1
      state.sentToProcess = 0
      state.sandboxPolicy = policy
      state.confinement = nil
    }
    inbox.expectOpening()
    do {
      let process = try launcher(locator.hostExecutable, spec.name, arguments, self)
      let now = clock.now
      state.change { state in
        state.process = process
        // Heartbeats cover every phase: a create() or start() that never returns is a hang too.
        state.lastHeartbeatSent = now
      }
      process.send(.hello(protocolVersion: WireProtocol.version))
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

  package var instanceStateDirectory: String { stateDirectory + "/instances/" + spec.name }

  /// Lets a held instance start.
  package func allowStart() {
    let process: (any PluginChannel)? = state.withLock { state in
      state.holdStart = false
      return state.phase == .starting && state.created ? state.process : nil
    }
    process?.send(.start)
  }

  /// Stops the instance: stop message, then SIGTERM, then SIGKILL, each after the stop timeout.
  /// Blocks until the process is gone.
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
    process.send(.stop)
    let timeout = spec.supervision.stopTimeout
    for signal in [SIGTERM, SIGKILL] {
      if waitForExit(of: process, within: timeout) { return }
      logger.warning("did not stop within \(timeout) s; sending \(ExitReason.signalName(signal))")
      process.signal(signal)
    }
    _ = waitForExit(of: process, within: 10)
  }

  private func waitForExit(of process: any PluginChannel, within seconds: Double) -> Bool {
    state.wait(until: Date(timeIntervalSinceNow: seconds)) { state, timedOut in
      if state.process !== process { return .done(true) }
      return timedOut ? .done(false) : .wait
    }
  }

  /// Waits until the plugin declared its ports, or the instance failed or stopped.
  package func waitUntilCreatedOrDown(until deadline: Date) {
    state.wait(until: deadline) { state, timedOut in
      state.created || state.phase == .failed || state.phase == .stopped || timedOut ? .done(()) : .wait
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
    case .created(let info, let ports):
      let hold = state.change { state in
        state.ports = ports
        state.created = true
        return state.holdStart
      }
      logger.info(
        "created: plugin \(info.name) \(info.version) (ABI \(info.abiMajor).\(info.abiMinor)), \(ports.count) ports")
      if !hold { process.send(.start) }
    case .started:
      let now = clock.now
      state.change { state in
        state.phase = .running
        state.startedAt = now
        state.lastHeartbeatSent = now
      }
      logger.info("running (pid \(process.pid))")
      inbox.open(replayingState: true)
    case .publish(let index, let value, let hops):
      let port: PortDescriptor? = state.withLock { state in
        let ports = state.ports
        guard ports.indices.contains(Int(index)), ports[Int(index)].direction == .output,
          ports[Int(index)].type == value.type
        else { return nil }
        state.messagesOut += 1
        return ports[Int(index)]
      }
      guard let port else {
        logger.error("published on port \(index), which is not an output of that type; ignored")
        return
      }
      delegate?.instance(self, published: value, on: port, hops: hops, batch: batch)
    case .log(let level, let text):
      logger.log(level: Self.hubLogLevel(level), "\(text)")
    case .heartbeat(let sequence):
      state.withLock { state in
        if sequence == state.heartbeatSequence { state.heartbeatOutstandingSince = nil }
      }
    case .failed(let stage, _, let text):
      logger.error("\(stage.name) failed: \(text)")
      state.change { $0.lastExit = "\(stage.name) failed: \(text)" }
      if stage == .load { markFailed("\(text)") }
    case .refusals(let total):
      state.change { $0.refusals = Int(clamping: total) }
    case .publishPressure(let busy, let waits):
      state.change {
        $0.publishBusy = Int(clamping: busy)
        $0.publishWaits = Int(clamping: waits)
      }

    case .confined(let abi, let network, let signals, let seccomp):
      state.change { $0.confinement = (Int(abi), network, signals, seccomp) }
    case .refusedCalls(let total):
      state.change { $0.refusedCalls = Int(clamping: total) }
    case .described, .stopped:
      break
    }
  }

  package func pluginChannel(_ process: any PluginChannel, exited reason: ExitReason) {
    let (deliberate, current, alreadyFailed) = state.withLock { state in
      (state.deliberateStop, state.process === process, state.phase == .failed)
    }
    guard current else { return }
    if process.escapedDescendantsKilled > 0 {
      logger.warning("killed \(process.escapedDescendantsKilled) processes the plugin had started and left behind")
    }
    inbox.hold()
    recoverUnseenInputs(of: process)
    let now = clock.now
    state.change { state in
      state.process = nil
      state.refusalsBefore += state.refusals
      state.refusals = 0
      state.refusedCallsBefore += state.refusedCalls
      state.refusedCalls = 0
      state.publishBusyBefore += state.publishBusy
      state.publishBusy = 0
      state.publishWaitsBefore += state.publishWaits
      state.publishWaits = 0
      state.lastRunDuration = state.startedAt.map { now - $0 }
      state.startedAt = nil
    }
    if deliberate {
      state.change { $0.phase = .stopped }
      logger.info("stopped (\(reason))")
      return
    }
    logger.error("plugin process \(process.pid) \(reason)")
    state.withLock { $0.lastExit = reason.description }
    if alreadyFailed { return }
    scheduleRestart(after: reason)
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
      logger.warning(
        "restarting in \(String(format: "%.2f", delay)) s (restart \(attempt) of at most \(spec.supervision.maxRestarts) within \(Int(spec.supervision.restartWindow)) s)"
      )
      // Scheduled in the same step as the phase changes: whoever sees `restarting` also finds
      // the restart on the clock (scheduling only enqueues; the timer takes the lock later).
      state.change { state in
        state.restarts += 1
        state.phase = .restarting
        let generationAtSchedule = state.generation
        clock.schedule(after: delay) { [self] in
          let stillWanted = self.state.withLock { state in
            state.phase == .restarting && state.generation == generationAtSchedule && !state.deliberateStop
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

  // MARK: Heartbeat (called by the hub's ticker)

  package func heartbeatTick() {
    let now = clock.now
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
        return (process, nil, now - since, state.phase)
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
      transmit(port: port.name, value: value, hops: hops)
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
        state.withLock { $0.drops += 1 }
        return false
      }
    }
    let accepted = inbox.enqueue(port: port.name, kind: port.kind, value: value, hops: hops)
    if !accepted { state.withLock { $0.drops += 1 } }
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

  package func countBackPressure() { state.withLock { $0.backPressureWaits += 1 } }

  private func deliverLoop() {
    while let inputs = inbox.next(limit: PacketSocket.framesPerCall) {
      transmit(inputs, blocking: true)
    }
  }

  /// Sends inputs taken for this instance (claimed by a reader's batch, or taken from the
  /// inbox by the delivery thread, which may block) in as few system calls as the channel can;
  /// what does not fit goes back to the front of the line, in order.
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
    // against older ports: such inputs are left out (as `transmit(port:)` does).
    var inputs = inputs
    if !unknown.isEmpty {
      logger.warning("\(unknown.count) inputs for unknown ports dropped")
      inputs = inputs.enumerated().filter { !unknown.contains($0.offset) }.map(\.element)
    }
    let sent = blocking ? process.send(messages) : process.trySend(messages)
    let count = sent ?? 0
    if count > 0 {
      let ledger = process.inputLedger
      state.withLock { state in
        state.messagesIn += count
        guard state.process === process, let ledger else { return }
        for input in inputs.prefix(count) {
          state.sentToProcess += 1
          state.inFlight.append(
            InFlightInput(
              sequence: state.sentToProcess, port: input.port, kind: input.kind, value: input.value, hops: input.hops))
        }
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

  /// Sends an input claimed by the thread that routed it without blocking, or puts it back at
  /// the front of the line: for the delivery thread when the socket is full, for the next
  /// process when this one is gone.
  private func transmit(port portName: String, value: Value, hops: UInt8) {
    defer { inbox.finishSending() }
    let target: (any PluginChannel, UInt32, PortKind)? = state.withLock { state in
      guard let process = state.process,
        let index = state.ports.firstIndex(where: { $0.name == portName && $0.direction == .input })
      else { return nil }
      return (process, UInt32(index), state.ports[index].kind)
    }
    guard let (process, index, kind) = target else {
      logger.warning("input for unknown port '\(portName)' dropped")
      return
    }
    let message = HubMessage.input(port: index, value: value, hops: hops)
    switch process.trySend(message) {
    case .sent:
      let ledger = process.inputLedger
      state.withLock { state in
        state.messagesIn += 1
        if state.process === process, let ledger {
          state.sentToProcess += 1
          state.inFlight.append(
            InFlightInput(sequence: state.sentToProcess, port: portName, kind: kind, value: value, hops: hops))
          // Forget what the host has finished (its ledger), so the list stays short.
          while let first = state.inFlight.first, first.sequence <= ledger.finished { state.inFlight.removeFirst() }
        }
      }
    case .wouldBlock:
      inbox.putBack(port: portName, kind: kind, value: value, hops: hops)
    case .closed:
      // The process is gone; keep the input for the next one.
      inbox.hold()
      inbox.putBack(port: portName, kind: kind, value: value, hops: hops)
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
      InstanceStatus(
        name: spec.name, plugin: spec.plugin, phase: state.phase, pid: state.process?.pid,
        uptimeSeconds: state.startedAt.map { now - $0 }, restarts: state.restarts, messagesIn: state.messagesIn,
        messagesOut: state.messagesOut, queueDepth: depth, drops: state.drops,
        refusals: state.refusalsBefore + state.refusals, backPressureWaits: state.backPressureWaits,
        publishBusy: state.publishBusyBefore + state.publishBusy,
        publishWaits: state.publishWaitsBefore + state.publishWaits, peer: nil,
        lastExit: state.lastExit, failure: state.failure, failedSince: state.failedSince, ports: state.ports,
        sandbox: state.sandboxPolicy.map { policy in
          SandboxStatus(
            policy: policy, landlockABI: state.confinement?.abi, networkConfined: state.confinement?.network ?? false,
            signalsScoped: state.confinement?.signals ?? false, seccomp: state.confinement?.seccomp ?? false,
            refusedCalls: state.refusedCallsBefore + state.refusedCalls)
        })
    }
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
