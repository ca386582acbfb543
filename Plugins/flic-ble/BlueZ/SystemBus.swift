import CSystemdBus
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One connection to the D-Bus system bus through sd-bus, driven by a thread of its own: every
/// call, signal handler and timer runs on that thread, so the code above it needs no locks.
/// sd-bus because it is in every systemd machine (Debian's libsystemd0), needs no daemon of its
/// own, and its non-blocking API (`sd_bus_process`, `sd_bus_get_events`) drives well from one
/// poll(2) loop. The bus is `DBUS_SYSTEM_BUS_ADDRESS`, else /run/dbus/system_bus_socket.
public final class SystemBus: Sendable {
  // sd_bus and the loop's tables are bus-thread state (`BusConfined`, checked there); the one
  // entry from other threads is `perform`, whose queue sits in a Mutex.

  public struct CallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The D-Bus error name (`org.bluez.Error.NotReady`), or `local` for sd-bus's own failures.
    public var name: String
    public var message: String
    public var description: String { message.isEmpty ? name : "\(name): \(message)" }

    public init(name: String, message: String) {
      self.name = name
      self.message = message
    }
  }

  public struct Signal: Sendable {
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]
  }

  /// The address, for messages: what the environment says or the default socket.
  public static var address: String {
    getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) } ?? "unix:path=/run/dbus/system_bus_socket"
  }

  /// What only the bus thread touches.
  private struct Loop {
    var bus: OpaquePointer?
    var matchBoxes: [Unmanaged<HandlerBox>] = []
    var timers: [(id: UInt64, deadline: UInt64, body: () -> Void)] = []
    var nextTimerID: UInt64 = 1
    var onLost: ((String) -> Void)?
  }

  /// The loop's thread while it runs.
  public let thread: BusThread
  private let loopState: BusConfined<Loop>
  private let pending = Mutex<[@Sendable () -> Void]>([])
  private let stopping = Atomic<Bool>(false)
  private let wakeRead: Int32
  private let wakeWrite: Int32
  /// The started thread, for `stop` to join.
  private let joinHandle = Mutex<pthread_t?>(nil)

  /// Called on the bus thread when the connection breaks (the bus daemon went away). Set it on
  /// the bus thread.
  public var onLost: ((String) -> Void)? {
    get { loopState.value.onLost }
    set { loopState.value.onLost = newValue }
  }

  public init() {
    let confinement = BusThread()
    thread = confinement
    loopState = BusConfined(Loop(), on: confinement)
    var fds: [Int32] = [-1, -1]
    _ = pipe(&fds)
    wakeRead = fds[0]
    wakeWrite = fds[1]
    for fd in fds {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
  }

  deinit {
    close(wakeRead)
    close(wakeWrite)
  }

  /// Starts the thread; `body` runs first on it.
  public func start(_ body: @escaping @Sendable () -> Void) {
    perform(body)
    let box = Unmanaged.passRetained(self).toOpaque()
    var handle = pthread_t()
    pthread_create(
      &handle, nil,
      { raw in
        let bus = Unmanaged<SystemBus>.fromOpaque(raw!).takeRetainedValue()
        bus.loop()
        return nil
      }, box)
    joinHandle.withLock { $0 = handle }
  }

  /// Ends the loop and closes the connection; returns when the thread has ended. Not on the bus thread.
  public func stop() {
    stopping.store(true, ordering: .sequentiallyConsistent)
    wake()
    if let handle = joinHandle.withLock({ $0.take() }) { pthread_join(handle, nil) }
  }

  /// Runs `body` on the bus thread (from any thread).
  public func perform(_ body: @escaping @Sendable () -> Void) {
    pending.withLock { $0.append(body) }
    wake()
  }

  private func wake() {
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  // MARK: On the bus thread

  public var isOpen: Bool { loopState.value.bus != nil }

  /// Connects to the system bus (closing an earlier connection).
  public func open() throws(CallError) {
    closeBus()
    var opened: OpaquePointer?
    let result = sd_bus_open_system(&opened)
    guard result >= 0, let opened else {
      throw CallError(
        name: "local", message: "cannot connect to the system bus at \(Self.address): \(errnoText(result))")
    }
    loopState.value.bus = opened
  }

  /// Drops the connection (matches and pending calls with it).
  public func closeBus() {
    guard let current = loopState.value.bus else { return }
    sd_bus_flush_close_unref(current)
    loopState.value.bus = nil
    for box in loopState.value.matchBoxes { box.release() }
    loopState.value.matchBoxes = []
  }

  /// Subscribes to signals that match the rule (added to the bus daemon, checked again by sd-bus).
  public func subscribe(_ rule: String, _ handler: @escaping (Signal) -> Void) throws(CallError) {
    guard let bus = loopState.value.bus else {
      throw CallError(name: "local", message: "not connected to the system bus")
    }
    let box = Unmanaged.passRetained(HandlerBox { message in handler(Self.signal(message)) })
    let result = sd_bus_add_match(bus, nil, rule, HandlerBox.callback, box.toOpaque())
    guard result >= 0 else {
      box.release()
      throw CallError(name: "local", message: "cannot subscribe to '\(rule)': \(errnoText(result))")
    }
    loopState.value.matchBoxes.append(box)
  }

  /// Calls a method; `reply` gets the return values or the error (also when the bus breaks).
  public func call(
    _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusArgument] = [],
    timeoutSeconds: Double = 25, reply: @escaping (Result<[DBusValue], CallError>) -> Void
  ) {
    guard let bus = loopState.value.bus else {
      reply(.failure(CallError(name: "local", message: "not connected to the system bus")))
      return
    }
    var message: OpaquePointer?
    var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
    for argument in arguments where result >= 0 { result = argument.append(to: message!) }
    guard result >= 0, let message else {
      sd_bus_message_unref(message)
      reply(.failure(CallError(name: "local", message: "cannot build \(member): \(errnoText(result))")))
      return
    }
    let box = Unmanaged.passRetained(
      HandlerBox { answer in
        guard let answer else { return }
        if sd_bus_message_is_method_error(answer, nil) > 0 {
          let error = sd_bus_message_get_error(answer)
          reply(
            .failure(
              CallError(
                name: error?.pointee.name.map { String(cString: $0) } ?? "unknown",
                message: error?.pointee.message.map { String(cString: $0) } ?? "")))
        } else {
          do {
            reply(.success(try DBusReader(message: answer).readAll()))
          } catch {
            reply(.failure(CallError(name: "local", message: "malformed answer to \(member)")))
          }
        }
      })
    result = sd_bus_call_async(
      bus, nil, message, HandlerBox.callOnce, box.toOpaque(), UInt64(timeoutSeconds * 1_000_000))
    sd_bus_message_unref(message)
    if result < 0 {
      box.release()
      reply(.failure(CallError(name: "local", message: "cannot send \(member): \(errnoText(result))")))
    }
  }

  /// Runs `body` on the bus thread after `seconds`; returns an id for `cancel`.
  @discardableResult
  public func after(_ seconds: Double, _ body: @escaping () -> Void) -> UInt64 {
    let id = loopState.value.nextTimerID
    loopState.value.nextTimerID += 1
    loopState.value.timers.append((id, Self.now() + UInt64(max(0, seconds) * 1_000_000), body))
    return id
  }

  public func cancel(_ id: UInt64) { loopState.value.timers.removeAll { $0.id == id } }

  // MARK: The loop

  private func loop() {
    thread.enter()
    defer { thread.leave() }
    while !stopping.load(ordering: .sequentiallyConsistent) {
      for body in pending.withLock({ queue in
        defer { queue = [] }; return queue
      }) { body() }
      processBus()
      fireTimers()
      waitForWork()
    }
    loopState.value.timers = []
    closeBus()
  }

  private func processBus() {
    while let current = loopState.value.bus {
      let result = sd_bus_process(current, nil)
      if result < 0 {
        closeBus()
        let lost = loopState.value.onLost
        lost?("the system bus connection broke: \(errnoText(result))")
        return
      }
      if result == 0 { return }
    }
  }

  private func fireTimers() {
    let now = Self.now()
    let due = loopState.value.timers.filter { $0.deadline <= now }
    loopState.value.timers.removeAll { $0.deadline <= now }
    for timer in due.sorted(by: { $0.deadline < $1.deadline }) { timer.body() }
  }

  private func waitForWork() {
    var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
    var deadline = loopState.value.timers.map(\.deadline).min() ?? UInt64.max
    if let current = loopState.value.bus {
      fds.append(pollfd(fd: sd_bus_get_fd(current), events: Int16(sd_bus_get_events(current)), revents: 0))
      var busDeadline: UInt64 = 0
      if sd_bus_get_timeout(current, &busDeadline) >= 0 { deadline = min(deadline, busDeadline) }
    }
    let now = Self.now()
    let timeout: Int32 =
      deadline == UInt64.max ? -1 : deadline <= now ? 0 : Int32(min((deadline - now + 999) / 1000, 60_000))
    _ = poll(&fds, nfds_t(fds.count), timeout)
    var drain = [UInt8](repeating: 0, count: 64)
    while read(wakeRead, &drain, drain.count) > 0 {}
  }

  static func now() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec) / 1000
  }

  static func signal(_ message: OpaquePointer?) -> Signal {
    func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
    return Signal(
      path: text(sd_bus_message_get_path(message)), interface: text(sd_bus_message_get_interface(message)),
      member: text(sd_bus_message_get_member(message)),
      arguments: message.flatMap { try? DBusReader(message: $0).readAll() } ?? [])
  }
}

/// A Swift closure behind sd-bus's C callback and userdata pointer.
final class HandlerBox {
  let body: (OpaquePointer?) -> Void
  init(_ body: @escaping (OpaquePointer?) -> Void) { self.body = body }

  /// A match handler: the box lives as long as the match.
  static let callback: sd_bus_message_handler_t = { message, userdata, _ in
    Unmanaged<HandlerBox>.fromOpaque(userdata!).takeUnretainedValue().body(message)
    return 0
  }

  /// A reply handler: called once, then the box is released.
  static let callOnce: sd_bus_message_handler_t = { message, userdata, _ in
    Unmanaged<HandlerBox>.fromOpaque(userdata!).takeRetainedValue().body(message)
    return 1
  }
}

func errnoText(_ result: Int32) -> String { String(cString: strerror(-result)) }
