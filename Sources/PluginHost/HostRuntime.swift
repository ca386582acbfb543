import CPatchbayPlugin
import CSandbox
import Dispatch
import PatchbayCValues
import PatchbayValues
import PatchbayWire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One plugin instance inside this process: the host services table the plugin calls, and
/// the plugin context (a serial queue) that runs every plugin callback one at a time.
final class HostRuntime: Sendable {
  enum Phase: Int {
    case empty, creating, created, started, stopping, stopped

    /// When a call came, for messages: "before start()", "after stop() returned".
    var when: String {
      switch self {
      case .empty: "before create()"
      case .creating: "during create()"
      case .created: "after create(), before start()"
      case .started: "after start()"
      case .stopping: "during stop()"
      case .stopped: "after stop() returned"
      }
    }
  }

  /// What the plugin's threads and the plugin context share: one lock over all of it.
  private struct Shared {
    var phase = Phase.empty
    var ports: [PortDescriptor] = []
    var config = InstanceConfig(json: "{}")
    var logLevel: UInt8 = UInt8(PB_LOG_INFO)
    /// The plugin declared PB_PLUGIN_PUBLISH_BUSY (ABI 1.1): a full buffer answers PB_ERR_BUSY.
    var publishBusy = false
    var nextTimer: UInt64 = 1
    /// Timers scheduled and not yet fired, cancelled or swept at stop.
    var liveTimers: [UInt64: ABIPointer<TimerCallback>] = [:]
    /// Cancelled timers whose user data waits to be released on the plugin context.
    var cancelledTimers: [ABIPointer<TimerCallback>] = []
    /// Refusals of the plugin's calls (bad values, wrong port or state), and what the hub was told.
    var refusals: UInt64 = 0
    var refusalsReported: UInt64 = 0
    /// System calls the seccomp filter refused, as last told to the hub.
    var refusedCallsReported: UInt64 = 0
    /// The outbox's back-pressure totals the hub was last told.
    var pressureReported = HostOutbox.Pressure()
    var refusalLog = LogBudget(burst: 3, interval: 10)
    var pluginLog = LogBudget(burst: 200, interval: 10)
  }

  let socket: PacketSocket
  /// Everything sent to the hub goes through it, in order (see `HostOutbox`).
  let outbox: HostOutbox
  /// The plugin context: create, start, receive, stop, destroy and timers run here, in order.
  let pluginQueue = DispatchQueue(label: "patchbay.plugin-context")
  private let shared = Mutex(Shared())
  /// The hops of the input the plugin is receiving, and the thread it receives on: given to
  /// what that thread publishes inside receive(). A publish from any other thread (a timer, the
  /// plugin's own thread) is not that input passed on and starts at 0, even while a receive()
  /// runs elsewhere: otherwise a source thread would inherit its echoes' hops and be cut.
  private let receivingHops = Atomic<UInt8>(0)
  private let receivingThread = Atomic<UInt>(0)
  /// Set by load(); read by the plugin context only (the lock is never contended).
  /// ABIPointer: the ABI calls the plugin's instance on the [plugin context] only.
  private let loaded = Mutex<ABIPointer<LoadedPlugin>?>(nil)
  /// Strings handed to the plugin: the create args and what the config accessors return.
  private let strings = RetainedStrings()
  /// ABIPointer: never written after it is built; the plugin reads it from any thread.
  private let api = ABIPointer(HostRuntime.allocateAPI())
  /// Inputs taken and finished, in memory shared with the hub (see `InputLedger`).
  let ledger: InputLedger
  private let housekeeping = DispatchQueue(label: "patchbay.host-housekeeping")
  /// Set only under `patchbay plugin test`: records callbacks and refused calls.
  let conformance: ConformanceObserver?

  init(socket: PacketSocket, ledger: InputLedger, conformance: ConformanceObserver? = nil) {
    self.socket = socket
    outbox = HostOutbox(socket: socket)
    self.ledger = ledger
    self.conformance = conformance
    scheduleHousekeeping()
  }

  /// Once a second, for the life of the process (the runtime is never released).
  private func scheduleHousekeeping() {
    housekeeping.asyncAfter(deadline: .now() + 1) { [unowned self] in
      reportCountsAndSummaries()
      scheduleHousekeeping()
    }
  }

  static func now() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }

  /// Counts a refused call; logs it within the per-kind budget (a plugin refused 1,000 times a
  /// second must not write 1,000 lines a second).
  func refuse(kind: String, level: UInt8 = UInt8(PB_LOG_WARNING), _ message: @autoclosure () -> String) {
    let admitted = shared.withLock {
      $0.refusals += 1
      return $0.refusalLog.admit(kind, now: Self.now())
    }
    if admitted { log(level, message()) }
  }

  /// Once a second, and at stop (on the housekeeping queue, so totals go out in order): the
  /// refusal and back-pressure counts for `status`, each only when it changed (a flood adds
  /// no frame per event), and the summaries of suppressed lines.
  private func reportCountsAndSummaries() {
    let now = Self.now()
    let pressure = outbox.pressure
    let refusedCalls = sb_refused_calls()
    let (total, changed, pressureChanged, callsChanged, logCalls, summaries) = shared.withLock {
      let changed = $0.refusals != $0.refusalsReported
      let callsChanged = refusedCalls != $0.refusedCallsReported
      $0.refusedCallsReported = refusedCalls
      // Within the refusal budget: a plugin refused in a loop writes a few lines, not one a second.
      let logCalls = callsChanged && $0.refusalLog.admit("system call", now: now)
      $0.refusalsReported = $0.refusals
      let pressureChanged = pressure != $0.pressureReported
      $0.pressureReported = pressure
      return (
        $0.refusals, changed, pressureChanged, callsChanged, logCalls,
        $0.refusalLog.dueSummaries(now: now) + $0.pluginLog.dueSummaries(now: now)
      )
    }
    for summary in summaries {
      outbox.send(
        HostMessage.log(
          level: UInt8(PB_LOG_WARNING),
          message:
            "\(summary.suppressed) more '\(summary.kind)' lines suppressed in the last \(Int(summary.seconds.rounded())) s"
        ).encode())
    }
    if changed { outbox.send(HostMessage.refusals(total: total).encode()) }
    if logCalls {
      log(
        UInt8(PB_LOG_WARNING),
        "sandbox: \(refusedCalls) system call(s) refused so far (EPERM), the last one number \(sb_last_refused_call())")
    }
    if callsChanged {
      outbox.send(HostMessage.refusedCalls(total: refusedCalls).encode())
    }
    if pressureChanged {
      outbox.send(HostMessage.publishPressure(busy: pressure.busy, waits: pressure.waits).encode())
    }
  }

  // MARK: Messages from the hub (called on the reader thread; work moves to the plugin queue)

  func handle(_ message: HubMessage) {
    switch message {
    case .hello:
      break
    case .describe(let path):
      pluginQueue.async { self.describe(path) }
    case .load(let request):
      pluginQueue.async { self.load(request) }
    case .start:
      pluginQueue.async { self.start() }
    case .input(let port, let value, let hops):
      // `sync` runs the callback on this thread when the plugin context is idle (no thread
      // hand-off per input: docs/BENCHMARKS.md), and a busy plugin leaves the inputs in the
      // hub's bounded queue instead of an unbounded one here.
      pluginQueue.sync { self.deliver(port: port, value: value, hops: hops) }
    case .heartbeat(let sequence):
      // Answered from the plugin context: a callback that never returns stops the answers.
      pluginQueue.async { self.sendOrLeave(.heartbeat(sequence: sequence)) }
    case .stop:
      pluginQueue.async { self.stop(exit: true) }
    case .retire:
      pluginQueue.async { self.retire() }
    }
  }

  private func describe(_ path: String) {
    do throws(LoadFailure) {
      let library = try PluginLibrary.open(path)
      outbox.send(HostMessage.described(library.info).encode())
    } catch {
      outbox.send(
        HostMessage.failed(stage: .load, status: Int32(PB_ERR_NOT_SUPPORTED), message: error.message).encode())
    }
    outbox.drain()
    hostExit(.done)
  }

  private func load(_ request: LoadRequest) {
    let library: PluginLibrary
    do throws(LoadFailure) {
      library = try PluginLibrary.open(request.libraryPath)
    } catch {
      fail(.load, status: PB_ERR_NOT_SUPPORTED, error.message)
    }
    // The hub found the library by plugin name; a descriptor that names another plugin is
    // refused here, so `check` and the running hub refuse it alike.
    if let foundAs = PluginFileName.pluginName(ofPath: request.libraryPath),
      let refusal = PluginFileName.mismatch(
        instance: request.instanceName, path: request.libraryPath, foundAs: foundAs, declared: library.info.name)
    {
      fail(.load, status: PluginFileName.mismatchStatus, refusal)
    }
    shared.withLock {
      $0.config = InstanceConfig(json: request.configJSON)
      $0.logLevel = request.logLevel
      $0.publishBusy = library.publishBusy
    }
    let args = LoadedPlugin.arguments(
      pb_create_args(
        size: UInt32(MemoryLayout<pb_create_args>.size), reserved: 0, api: api.pointer,
        host: OpaquePointer(Unmanaged.passUnretained(self).toOpaque()),
        instance_name: strings.pointer(for: request.instanceName),
        config_json: strings.pointer(for: request.configJSON),
        state_directory: strings.pointer(for: request.stateDirectory)))
    setPhase(.creating)
    var error = pb_error()
    var created: UnsafeMutableRawPointer?
    let call = conformance?.callbackBegins("create")
    let status = library.descriptor.create(args, &created, &error)
    if let call { conformance?.callbackEnded(call, status: status, message: Self.text(error)) }
    guard status == PB_OK else {
      fail(.create, status: status, Self.message(error, status: status))
    }
    let plugin = ABIPointer(LoadedPlugin(library: library, instance: created, arguments: args))
    loaded.withLock { $0 = plugin }
    setPhase(.created)
    sendOrLeave(.created(library.info, ports: shared.withLock { $0.ports }))
  }

  /// The loaded plugin, on the plugin context.
  private var plugin: LoadedPlugin? { loaded.withLock { $0 }?.pointer }

  private func start() {
    guard let plugin, currentPhase == .created else { return }
    setPhase(.started)  // publishing is allowed from inside start()
    var error = pb_error()
    let call = conformance?.callbackBegins("start")
    let status = plugin.library.descriptor.start(plugin.instance, &error)
    if let call { conformance?.callbackEnded(call, status: status, message: Self.text(error)) }
    guard status == PB_OK else {
      setPhase(.stopped)
      releaseTimers(all: true)
      plugin.library.descriptor.destroy(plugin.instance)
      fail(.start, status: status, Self.message(error, status: status))
    }
    sendOrLeave(.started)
  }

  /// The instance was removed from the config: the plugin's `retire` (ABI 1.3) undoes what it
  /// left outside the hub. The instance stays created (no publishing); `stop` destroys it.
  private func retire() {
    guard let plugin, currentPhase == .created else { return }
    guard let retire = plugin.library.retire else {
      outbox.send(
        HostMessage.failed(stage: .retire, status: PB_ERR_NOT_SUPPORTED, message: "the plugin has no retire").encode())
      return
    }
    var error = pb_error()
    let call = conformance?.callbackBegins("retire")
    let status = retire(plugin.instance, &error)
    if let call { conformance?.callbackEnded(call, status: status, message: Self.text(error)) }
    if status == PB_OK {
      outbox.send(HostMessage.retired.encode())
    } else {
      outbox.send(
        HostMessage.failed(stage: .retire, status: status, message: Self.message(error, status: status)).encode())
    }
  }

  private func deliver(port: UInt32, value: Value, hops: UInt8) {
    ledger.take()
    defer { ledger.finish() }
    guard let plugin, currentPhase == .started else { return }
    let declared = shared.withLock { $0.ports.indices.contains(Int(port)) ? $0.ports[Int(port)] : nil }
    guard let declared, declared.direction == .input, declared.type == value.type else {
      log(UInt8(PB_LOG_ERROR), "hub sent a \(value.type.name) to port \(port), which is not such an input; ignored")
      return
    }
    var error = pb_error()
    let call = conformance?.callbackBegins("receive(\(declared.name))")
    // What the plugin publishes inside receive() is this input passed on (an echo, a mirror):
    // it carries the input's hops, so the hub can cut a loop (WireProtocol.maximumHops).
    receivingHops.store(hops, ordering: .relaxed)
    receivingThread.store(UInt(pthread_self()), ordering: .relaxed)
    let status = value.withCValue { plugin.library.descriptor.receive(plugin.instance, port, $0, &error) }
    receivingThread.store(0, ordering: .relaxed)
    receivingHops.store(0, ordering: .relaxed)
    if let call { conformance?.callbackEnded(call, status: status, message: Self.text(error)) }
    if status != PB_OK {
      log(UInt8(PB_LOG_WARNING), "input '\(declared.name)' refused: \(Self.message(error, status: status))")
    }
  }

  /// Stops and destroys the instance; with `exit`, ends the process after telling the hub.
  func stop(exit shouldExit: Bool) {
    if let plugin, currentPhase == .started || currentPhase == .created {
      let wasStarted = currentPhase == .started
      setPhase(.stopping)
      var error = pb_error()
      if wasStarted {
        let call = conformance?.callbackBegins("stop")
        let status = plugin.library.descriptor.stop(plugin.instance, &error)
        if let call { conformance?.callbackEnded(call, status: status, message: Self.text(error)) }
        if status != PB_OK { log(UInt8(PB_LOG_WARNING), "stop: \(Self.message(error, status: status))") }
      }
      setPhase(.stopped)
      conformance?.stopReturned()
      releaseTimers(all: true)
      let call = conformance?.callbackBegins("destroy")
      plugin.library.descriptor.destroy(plugin.instance)
      if let call { conformance?.callbackEnded(call) }
    }
    conformance?.destroyed()
    // The last second's counts, so a restart after a flood carries them into the next process's.
    housekeeping.sync { reportCountsAndSummaries() }
    outbox.send(HostMessage.stopped.encode())
    guard shouldExit else { return }
    // What the plugin published before stop() returned reaches the hub before the process ends.
    outbox.drain()
    hostExit(.done)
  }

  private func fail(_ stage: LifecycleStage, status: Int32, _ message: String) -> Never {
    outbox.send(HostMessage.failed(stage: stage, status: status, message: message).encode())
    outbox.drain()
    hostExit(stage == .load ? .loadFailed : .lifecycleFailed)
  }

  static func message(_ error: pb_error, status: Int32) -> String {
    let text = text(error)
    return text.isEmpty ? "status \(status) (\(StatusName.of(status)))" : "\(text) (status \(StatusName.of(status)))"
  }

  /// What the plugin wrote into the error buffer, up to its NUL.
  static func text(_ error: pb_error) -> String {
    var copy = error
    return withUnsafeBytes(of: &copy.message) { bytes -> String in
      let end = bytes.firstIndex(of: 0) ?? bytes.count
      return String(decoding: bytes[0..<end], as: UTF8.self)
    }
  }

  /// A message the hub must get for supervision to work; without a connection (the plugin
  /// closed it, or the hub is gone) this process cannot be supervised and leaves.
  func sendOrLeave(_ message: HostMessage) {
    guard outbox.send(message.encode()) else {
      let text = "patchbay-plugin-host: lost the connection to the hub (\(String(cString: strerror(errno)))); exiting\n"
      _ = text.withCString { write(2, $0, strlen($0)) }
      hostExit(.lostHub)
    }
  }

  // MARK: State shared with plugin threads

  private var currentPhase: Phase { shared.withLock { $0.phase } }
  private func setPhase(_ new: Phase) { shared.withLock { $0.phase = new } }

  /// A line the plugin logs itself, within its budget (a plugin logging in a loop is summarised).
  func pluginLog(_ level: UInt8, _ message: String) {
    guard level >= shared.withLock({ $0.logLevel }) else { return }
    guard shared.withLock({ $0.pluginLog.admit("plugin log", now: Self.now()) }) else { return }
    log(level, message)
  }

  func log(_ level: UInt8, _ message: String) {
    guard level >= shared.withLock({ $0.logLevel }) else { return }
    outbox.send(HostMessage.log(level: level, message: String(message.prefix(8192))).encode())
  }

  // MARK: The host services table

  static func runtime(_ host: OpaquePointer?) -> HostRuntime? {
    guard let host else { return nil }
    return Unmanaged<HostRuntime>.fromOpaque(UnsafeRawPointer(host)).takeUnretainedValue()
  }

  func addPort(_ raw: UnsafePointer<pb_port>?, _ indexOut: UnsafeMutablePointer<UInt32>?) -> pb_status {
    let current = currentPhase
    guard current == .creating else {
      let name = raw?.pointee.name.map { String(cString: $0) } ?? "?"
      conformance?.violation(.portsDeclaredInCreate, "add_port('\(name)') called \(current.when); refused")
      log(UInt8(PB_LOG_ERROR), "add_port called outside create(); refused")
      return PB_ERR_INVALID_STATE
    }
    guard let raw, raw.pointee.size >= UInt32(MemoryLayout<pb_port>.offset(of: \.description)! + 8) else {
      log(UInt8(PB_LOG_ERROR), "add_port: NULL port or size too small")
      return PB_ERR_INVALID_ARGUMENT
    }
    // Only the plugin's own header size is readable (a 1.0 pb_port is shorter): copy what fits.
    var port = pb_port()
    withUnsafeMutableBytes(of: &port) { target in
      target.copyMemory(
        from: UnsafeRawBufferPointer(start: raw, count: min(Int(raw.pointee.size), MemoryLayout<pb_port>.size)))
    }
    guard let cName = port.name else {
      log(UInt8(PB_LOG_ERROR), "add_port: port name is NULL")
      return PB_ERR_INVALID_ARGUMENT
    }
    let name = String(cString: cName)
    guard PortDescriptor.isValidName(name) else {
      log(UInt8(PB_LOG_ERROR), "add_port: invalid port name '\(name)' (1-64 of a-z, 0-9, _ and .)")
      return PB_ERR_INVALID_ARGUMENT
    }
    guard let direction = PortDirection(rawValue: port.direction), let kind = PortKind(rawValue: port.kind),
      let type = ValueType(rawValue: port.type)
    else {
      log(
        UInt8(PB_LOG_ERROR),
        "add_port '\(name)': unknown direction \(port.direction), kind \(port.kind) or type \(port.type)")
      return PB_ERR_INVALID_ARGUMENT
    }
    let description = port.description.map { String(cString: $0) } ?? ""
    var descriptor = PortDescriptor(
      name: name, direction: direction, kind: kind, type: type, description: String(description.prefix(1024)))
    // ABI 1.2 attributes, only when the plugin's pb_port is long enough to hold them.
    let hasAttributes = Int(raw.pointee.size) >= MemoryLayout<pb_port>.offset(of: \.mirrors)! + 4
    let flags = hasAttributes ? port.flags : 0
    let index: Result<Int, PortRefusal> = shared.withLock {
      if let refusal = Self.applyAttributes(flags: flags, mirrors: port.mirrors, to: &descriptor, declared: $0.ports) {
        return .failure(refusal)
      }
      guard !$0.ports.contains(where: { $0.name == descriptor.name }), $0.ports.count < HostMessage.maximumPorts else {
        return .failure(
          PortRefusal("duplicate port name '\(name)' (or more than \(HostMessage.maximumPorts) ports)"))
      }
      $0.ports.append(descriptor)
      return .success($0.ports.count - 1)
    }
    let refusal: PortRefusal
    switch index {
    case .success(let index):
      indexOut?.pointee = UInt32(index)
      return PB_OK
    case .failure(let failure): refusal = failure
    }
    log(UInt8(PB_LOG_ERROR), "add_port '\(name)': \(refusal.message)")
    return PB_ERR_INVALID_ARGUMENT
  }

  /// Checks the ABI 1.2 attribute bits of a port being declared and records them in
  /// `descriptor`; a refusal says why. Unknown bits (a newer plugin's) are ignored.
  static func applyAttributes(
    flags: UInt32, mirrors: UInt32, to descriptor: inout PortDescriptor, declared: [PortDescriptor]
  ) -> PortRefusal? {
    if flags & UInt32(PB_PORT_MIRRORS_INPUT) != 0 {
      guard descriptor.direction == .output else { return PortRefusal("only an output can mirror an input") }
      guard declared.indices.contains(Int(mirrors)), declared[Int(mirrors)].direction == .input,
        declared[Int(mirrors)].kind == .state
      else { return PortRefusal("mirrors \(mirrors), which is not a state input declared before it") }
      let input = declared[Int(mirrors)]
      guard input.type == descriptor.type else {
        return PortRefusal("a \(descriptor.type.name) output cannot mirror '\(input.name)', a \(input.type.name) input")
      }
      descriptor.mirrors = input.name
    }
    let peer = flags & UInt32(PB_PORT_PEER_STATUS) != 0
    let shown = flags & UInt32(PB_PORT_SHOWN_IN_STATUS) != 0
    guard !(peer && shown) else {
      return PortRefusal("PB_PORT_PEER_STATUS and PB_PORT_SHOWN_IN_STATUS exclude each other")
    }
    if let role: PortStatusRole = peer ? .peer : shown ? .shown : nil {
      guard role.fits(descriptor) else {
        return PortRefusal(
          role == .peer
            ? "PB_PORT_PEER_STATUS needs a bool or text state output"
            : "PB_PORT_SHOWN_IN_STATUS needs a text state output")
      }
      if role == .peer, let other = declared.first(where: { $0.statusRole == .peer }) {
        return PortRefusal("'\(other.name)' is already the peer status (at most one per instance)")
      }
      descriptor.statusRole = role
    }
    return nil
  }

  func publish(_ index: UInt32, _ raw: UnsafePointer<pb_value>?) -> pb_status {
    guard let raw else { return PB_ERR_INVALID_ARGUMENT }
    let snapshot: (Phase, PortDescriptor?, Bool) = shared.withLock {
      ($0.phase, $0.ports.indices.contains(Int(index)) ? $0.ports[Int(index)] : nil, $0.publishBusy)
    }
    let (current, port, busyAllowed) = snapshot
    guard current == .started || current == .stopping else {
      conformance?.violation(
        current == .stopped ? .noPublishAfterStop : .noPublishBeforeStart,
        "publish on port \(index) \(current.when); refused with PB_ERR_INVALID_STATE")
      refuse(
        kind: "publish outside start..stop",
        "publish on port \(index) refused: the instance is not running (\(current))")
      return PB_ERR_INVALID_STATE
    }
    guard let port, port.direction == .output else {
      conformance?.violation(.publishMatchesPort, "publish on port \(index): no such output port")
      refuse(kind: "publish on unknown port", "publish on port \(index) refused: no such output port")
      return PB_ERR_UNKNOWN_PORT
    }
    let value: Value
    do throws(ValueRejection) {
      value = try Value(checking: raw)
    } catch {
      conformance?.violation(.publishMatchesPort, "publish on '\(port.name)': \(error)")
      refuse(kind: "publish on '\(port.name)' refused", "publish on '\(port.name)' refused: \(error)")
      return PB_ERR_INVALID_ARGUMENT
    }
    guard value.type == port.type else {
      conformance?.violation(
        .publishMatchesPort, "publish on '\(port.name)': a \(value.type.name), the port carries \(port.type.name)")
      refuse(
        kind: "publish on '\(port.name)' wrong type",
        "publish on '\(port.name)' refused: a \(value.type.name), the port carries \(port.type.name)")
      return PB_ERR_TYPE_MISMATCH
    }
    let hops =
      receivingThread.load(ordering: .relaxed) == UInt(pthread_self()) ? receivingHops.load(ordering: .relaxed) : 0
    let frame = HostMessage.publish(port: index, value: value, hops: hops).encode()
    guard port.kind == .event else { return outbox.publishState(frame, port: index) ? PB_OK : PB_ERR_UNAVAILABLE }
    switch outbox.publishEvent(frame, busyAllowed: busyAllowed) {
    case .taken: return PB_OK
    case .busy: return PB_ERR_BUSY
    case .closed: return PB_ERR_UNAVAILABLE
    }
  }

  func schedule(
    _ delay: UInt64, _ callback: pb_timer_fn?, release: pb_release_fn? = nil, _ userData: UnsafeMutableRawPointer?
  ) -> UInt64? {
    guard let callback else { return nil }
    // ABIPointer: the ABI runs the callback once, on the [plugin context], with the plugin's data.
    let timer = ABIPointer(TimerCallback(function: callback, release: release, userData: userData))
    let id: UInt64 = shared.withLock { shared in
      let id = shared.nextTimer
      shared.nextTimer += 1
      shared.liveTimers[id] = timer
      return id
    }
    pluginQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(delay, UInt64(Int.max))))) {
      // Not yet started or already stopping: the timer stays for the sweep after stop().
      let due = self.shared.withLock { $0.phase == .started ? $0.liveTimers.removeValue(forKey: id) : nil }
      guard let due else { return }
      let call = self.conformance?.callbackBegins("timer")
      due.pointer.function(due.pointer.userData, id)
      if let call { self.conformance?.callbackEnded(call) }
      due.pointer.release?(due.pointer.userData)
    }
    return id
  }

  func cancelTimer(_ id: UInt64) -> pb_status {
    let cancelled: ABIPointer<TimerCallback>? = shared.withLock { shared in
      guard let timer = shared.liveTimers.removeValue(forKey: id) else { return nil }
      if timer.pointer.release != nil { shared.cancelledTimers.append(timer) }
      return timer
    }
    guard let cancelled else { return PB_ERR_NOT_FOUND }
    // The release runs on the plugin context (the header's promise), whichever thread cancelled.
    if cancelled.pointer.release != nil { pluginQueue.async { self.releaseTimers(all: false) } }
    return PB_OK
  }

  /// Releases the user data of cancelled timers and, with `all` (after stop() returned, before
  /// destroy()), of those still pending. On the plugin context.
  private func releaseTimers(all: Bool) {
    let done: [ABIPointer<TimerCallback>] = shared.withLock { shared in
      var done = shared.cancelledTimers
      shared.cancelledTimers = []
      if all {
        done += shared.liveTimers.sorted { $0.key < $1.key }.map(\.value)
        shared.liveTimers = [:]
      }
      return done
    }
    for timer in done { timer.pointer.release?(timer.pointer.userData) }
  }

  func reportFault(_ code: pb_status, _ message: String) -> Never {
    // The hub trusts this report, not the exit status (a plugin can exit() with any number).
    outbox.send(HostMessage.failed(stage: .fault, status: code, message: message).encode())
    outbox.drain()
    hostExit(.pluginFault)
  }

  func configAccess(_ path: UnsafePointer<CChar>?) -> JSONValue? {
    guard let path else { return nil }
    let key = String(cString: path)
    return shared.withLock { $0.config.lookup(key) }
  }

  func retained(_ string: String) -> UnsafePointer<CChar> { strings.pointer(for: string) }
}
