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
  public func addOutput(_ name: String, _ type: ValueType, kind: PortKind, description: String = "") throws
    -> OutputPort
  {
    let index = try addPort(name, type, kind: kind, direction: UInt32(PB_PORT_OUTPUT), description: description)
    return OutputPort(index: index, name: name, type: type)
  }

  private func addPort(_ name: String, _ type: ValueType, kind: PortKind, direction: UInt32, description: String)
    throws -> UInt32
  {
    var index: UInt32 = 0
    let status = name.withCString { cName in
      description.withCString { cDescription in
        var port = pb_port(
          size: UInt32(MemoryLayout<pb_port>.size), direction: direction, kind: kind.rawValue, type: type.rawValue,
          name: cName, description: cDescription)
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

  /// Publishes a value on an output port. Any thread, after `start()` has begun.
  @discardableResult
  public func publish(_ value: Value, on port: OutputPort) -> Bool {
    value.withCValue { api.pointee.publish(host, port.index, $0) } == PB_OK
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
    let status = api.pointee.schedule(
      host, nanoseconds,
      { userData, _ in
        guard let userData else { return }
        Unmanaged<TimerBox>.fromOpaque(userData).takeRetainedValue().body()
      }, box, &id)
    if status != PB_OK { Unmanaged<TimerBox>.fromOpaque(box).release() }
    return id
  }

  /// Cancels a timer that has not fired. Any thread. (Its closure is leaked, by design small.)
  public func cancel(timer id: UInt64) {
    _ = api.pointee.cancel_timer(host, id)
  }

  /// Gives up: the host process ends and the supervisor restarts the instance by policy.
  public func fault(_ message: String) -> Never {
    api.pointee.report_fault(host, -7, message)
    // report_fault does not return; this satisfies the compiler.
    abort()
  }
}

final class TimerBox: Sendable {
  let body: @Sendable () -> Void
  init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
