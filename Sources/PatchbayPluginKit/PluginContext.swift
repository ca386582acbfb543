import CPatchbayPlugin
import PatchbayCValues
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What the hub gives an instance: its name and config, port declaration, publishing,
/// logging, timers and a state directory. Safe to use from any thread (see each method).
public final class PluginContext: Sendable {
  public let instanceName: String
  /// The instance's config section as a JSON object (the hub's own keys removed).
  public let configJSON: String
  /// A private directory that survives restarts; write files atomically.
  public let stateDirectory: String

  /// The host's table and context. ABIPointer: both stay valid until destroy(), and the
  /// header lets any plugin thread call the [any thread] functions through them.
  private let services: ABIPointer<(api: UnsafePointer<pb_host_api>, host: OpaquePointer)>
  var api: UnsafePointer<pb_host_api> { services.pointer.api }
  var host: OpaquePointer { services.pointer.host }
  /// Declared in `init(context:)`, read by `receive` (both on the plugin context).
  private let inputs = Mutex<[UInt32: InputPort]>([:])

  init(args: UnsafePointer<pb_create_args>) {
    let raw = args.pointee
    services = ABIPointer((raw.api, raw.host))
    instanceName = String(cString: raw.instance_name)
    configJSON = raw.config_json.map { String(cString: $0) } ?? "{}"
    stateDirectory = raw.state_directory.map { String(cString: $0) } ?? "."
  }

  // MARK: Ports (only inside `init(context:)`)

  /// Declares an input port. Only valid while the plugin's `init(context:)` runs.
  public func addInput(_ name: String, _ type: ValueType, kind: PortKind, description: String = "") throws
    -> InputPort
  {
    let index = try addPort(name, type, kind: kind, direction: UInt32(PB_PORT_INPUT), description: description)
    let port = InputPort(index: index, name: name, type: type)
    inputs.withLock { $0[index] = port }
    return port
  }

  /// Declares an output port. Only valid while the plugin's `init(context:)` runs.
  ///
  /// - `mirroring`: the port reports the device's own state of this input (HomeKit wrote it, the
  ///   Hue app changed it): what is published here also becomes the input's retained value, so
  ///   a restart does not set the device back to an older command (`PB_PORT_MIRRORS_INPUT`).
  /// - `shownInStatus`: `patchbay status` shows the port's value (`.peer`: in the PEER column,
  ///   a bool or text state port; `.shown`: as a line under the instance, a text state port).
  ///
  /// Both are ABI 1.2; a hub older than that runs the plugin without them.
  public func addOutput(
    _ name: String, _ type: ValueType, kind: PortKind, description: String = "", mirroring input: InputPort? = nil,
    shownInStatus role: PortStatusRole? = nil
  ) throws -> OutputPort {
    var flags: UInt32 = 0
    if input != nil { flags |= UInt32(PB_PORT_MIRRORS_INPUT) }
    switch role {
    case .peer: flags |= UInt32(PB_PORT_PEER_STATUS)
    case .shown: flags |= UInt32(PB_PORT_SHOWN_IN_STATUS)
    case nil: break
    }
    let index = try addPort(
      name, type, kind: kind, direction: UInt32(PB_PORT_OUTPUT), description: description, flags: flags,
      mirrors: input?.index ?? 0)
    return OutputPort(index: index, name: name, type: type)
  }

  private func addPort(
    _ name: String, _ type: ValueType, kind: PortKind, direction: UInt32, description: String, flags: UInt32 = 0,
    mirrors: UInt32 = 0
  ) throws -> UInt32 {
    var index: UInt32 = 0
    let status = name.withCString { cName in
      description.withCString { cDescription in
        var port = pb_port(
          size: UInt32(MemoryLayout<pb_port>.size), direction: direction, kind: kind.rawValue, type: type.rawValue,
          name: cName, description: cDescription, flags: flags, mirrors: mirrors)
        return api.pointee.add_port(host, &port, &index)
      }
    }
    guard status == PB_OK else {
      throw PluginError(.invalidArgument, "the hub refused port '\(name)' (status \(status))")
    }
    return index
  }

  /// The input port with this index, if this instance declared one.
  func input(at index: UInt32) -> InputPort? { inputs.withLock { $0[index] } }

  // MARK: Any thread

  /// Publishes a value on an output port. Any thread, after `start()` has begun. On an event
  /// port whose consumer is full (back-pressure) it waits until the hub takes the value, so no
  /// event is lost; use `tryPublish` to be told `.busy` instead. False when the hub refused
  /// the value (wrong port, type, or outside start..stop) or is gone.
  @discardableResult
  public func publish(_ value: Value, on port: OutputPort) -> Bool {
    while true {
      switch tryPublish(value, on: port) {
      case .published: return true
      case .refused: return false
      case .busy: guard waitForRoom() else { return false }
      }
    }
  }

  /// What `tryPublish` did with a value.
  public enum PublishResult: Equatable, Sendable {
    case published
    /// An event port's consumer is full and the host's buffer too (PB_ERR_BUSY): the value was
    /// not taken. Publish it again later (`waitForRoom` waits for the moment), before the
    /// port's later events.
    case busy
    /// Refused with this status (PB_ERR_*): wrong port or type, outside start..stop, no hub.
    case refused(status: Int32)
  }

  /// Publishes a value without waiting: on an event port under back-pressure, once the host
  /// has buffered `PB_PUBLISH_BUFFER_EVENTS` values, answers `.busy` (ABI 1.1). State values
  /// are never busy (the newest replaces a waiting one). Any thread, after `start()` has begun.
  public func tryPublish(_ value: Value, on port: OutputPort) -> PublishResult {
    switch value.withCValue({ api.pointee.publish(host, port.index, $0) }) {
    case PB_OK: .published
    case PB_ERR_BUSY: .busy
    case let status: .refused(status: status)
    }
  }

  /// Waits until an event publish would be taken again, at most `timeout` (nil: as long as it
  /// takes). False when the time ran out. Any thread. Another thread may take the room first.
  @discardableResult
  public func waitForRoom(timeout: Duration? = nil) -> Bool {
    // A host older than ABI 1.1 has no such entry, and never answers PB_ERR_BUSY either.
    guard let wait = hostFunction(\.wait_for_room) else { return true }
    var nanoseconds = UInt64.max
    if let timeout {
      let (seconds, attoseconds) = timeout.components
      nanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
    return wait(host, nanoseconds) == PB_OK
  }

  /// Logs one line, prefixed by the hub with the instance name. Any thread.
  public func log(_ level: LogLevel, _ message: String) {
    api.pointee.log(host, level.rawValue, message)
  }

  /// Nanoseconds of a monotonic clock. Any thread.
  public var monotonicNanoseconds: UInt64 { api.pointee.monotonic_ns(host) }

  /// Runs `body` once in the plugin context after `delay`. Any thread. Returns an id for `cancel`.
  @discardableResult
  public func schedule(after delay: Duration, _ body: @escaping @Sendable () -> Void) -> UInt64 {
    let box = Unmanaged.passRetained(TimerBox(body)).toOpaque()
    let (seconds, attoseconds) = delay.components
    let nanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    var id: UInt64 = 0
    let status: pb_status
    if let scheduleWithRelease = hostFunction(\.schedule_with_release) {
      // ABI 1.2: the host releases the closure once the timer is done (fired or cancelled).
      status = scheduleWithRelease(
        host, nanoseconds,
        { userData, _ in
          guard let userData else { return }
          Unmanaged<TimerBox>.fromOpaque(userData).takeUnretainedValue().body()
        },
        { userData in
          guard let userData else { return }
          Unmanaged<TimerBox>.fromOpaque(userData).release()
        }, box, &id)
    } else {
      // An older host: the callback releases the closure, a cancelled timer's stays (small).
      status = api.pointee.schedule(
        host, nanoseconds,
        { userData, _ in
          guard let userData else { return }
          Unmanaged<TimerBox>.fromOpaque(userData).takeRetainedValue().body()
        }, box, &id)
    }
    if status != PB_OK { Unmanaged<TimerBox>.fromOpaque(box).release() }
    return id
  }

  /// Cancels a timer that has not fired. Any thread. The host releases its closure (on a host
  /// older than ABI 1.2 it stays in memory).
  public func cancel(timer id: UInt64) {
    _ = api.pointee.cancel_timer(host, id)
  }

  /// A host function newer than ABI 1.0, if this host's table has it (`PB_HOST_HAS`).
  private func hostFunction<Function>(_ field: KeyPath<pb_host_api, Function?>) -> Function? {
    guard let offset = MemoryLayout<pb_host_api>.offset(of: field),
      Int(api.pointee.size) >= offset + MemoryLayout<Function?>.size
    else { return nil }
    // Read just that field: an older host's table ends before the struct this kit knows.
    return UnsafeRawPointer(api).load(fromByteOffset: offset, as: Function?.self)
  }

  /// Gives up: the host process ends and the supervisor restarts the instance by policy.
  public func fault(_ message: String) -> Never {
    api.pointee.report_fault(host, PB_ERR_INTERNAL, message)
    // report_fault does not return; this satisfies the compiler.
    abort()
  }
}

final class TimerBox: Sendable {
  let body: @Sendable () -> Void
  init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
