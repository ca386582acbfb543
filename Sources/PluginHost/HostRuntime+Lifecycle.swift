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

/// The hub's messages (on the reader thread; the work moves to the plugin context): load and
/// create, start, inputs, stop, retire, and how a failure ends the process.
extension HostRuntime {
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

  func describe(_ path: String) {
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

  func load(_ request: LoadRequest) {
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

  func start() {
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
  func retire() {
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

  func deliver(port: UInt32, value: Value, hops: UInt8) {
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

  func fail(_ stage: LifecycleStage, status: Int32, _ message: String) -> Never {
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
}
