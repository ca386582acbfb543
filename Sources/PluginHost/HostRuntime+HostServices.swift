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

/// The host services table: what the plugin calls, from any thread (ports in create(),
/// publish, timers, config accessors, fault reports). Everything it passes in is untrusted.
extension HostRuntime {
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
  func releaseTimers(all: Bool) {
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
