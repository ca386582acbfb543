import CAvahi

#if canImport(Glibc)
  import Glibc
#endif

/// What an `AvahiConnection` tells its owner. Delivered on the threaded poll's thread, with the
/// poll's lock held: the owner may use the client's objects, and must not take the lock itself.
enum AvahiConnectionEvent {
  /// The daemon is there and its host name is established: create entry groups and browsers on
  /// this client now (again, after a reconnection).
  case running(OpaquePointer)
  /// The daemon is (re)registering its host name: withdraw entries, register again at `running`.
  case suspended
  /// The client (and every object made on it) is about to be freed: forget them.
  case lost
  /// No responder: the daemon is not on the bus, or there is no bus. The connection waits for
  /// it and reports `running` when it comes.
  case waiting(String)
  /// Something the connection cannot recover from.
  case failed(String)
}

/// The part of an advertiser or browser that lives on an `AvahiConnection`'s poll: its C objects
/// and the fields that go with them, touched only on the poll's thread (its callbacks) or with the
/// poll's lock held (`AvahiConnection.withLock`). The connection owns it.
protocol AvahiConnectionOwner: AnyObject {
  /// On the poll's thread, its lock held.
  func connectionChanged(_ event: AvahiConnectionEvent)
}

/// The Avahi callbacks of a connection: C function pointers cannot reach a generic class, so
/// their userdata is this (non-generic) box.
private final class AvahiCallbacks {
  var clientChanged: (OpaquePointer, AvahiClientState) -> Void = { _, _ in }
  var busMayHaveAppeared: () -> Void = {}
}

/// Where libdbus connects: `DBUS_SYSTEM_BUS_ADDRESS`, else the system socket.
enum AvahiBus {
  /// The socket of the D-Bus system bus libdbus will connect to.
  static let socketPath: String = {
    let address = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) } ?? ""
    for entry in address.split(separator: ";") {
      for part in entry.split(separator: ",") {
        if part.hasPrefix("unix:path=") { return String(part.dropFirst(10)) }
        if part.hasPrefix("path=") { return String(part.dropFirst(5)) }
      }
    }
    return "/run/dbus/system_bus_socket"
  }()
}

/// One libavahi-client connection to avahi-daemon on an Avahi threaded poll, kept alive through
/// daemon restarts: `AVAHI_CLIENT_NO_FAIL` waits for a daemon that is not (yet) on the bus, a
/// disconnected client is freed and made anew (as Avahi's documentation asks), and when the
/// D-Bus system bus itself is missing, inotify on its socket's folder says when it appears.
///
/// libdbus reads the bus address (`DBUS_SYSTEM_BUS_ADDRESS`, else the system socket) once per
/// process, at the first connection: every Avahi client in a process talks to the same bus.
///
/// The one C boundary of mDNS: the threaded poll's thread and lock are what guard the C objects,
/// so the owner's poll side lives here, and others reach it only through `withLock`.
final class AvahiConnection<Owner: AvahiConnectionOwner>: @unchecked Sendable {
  // C boundary, unchecked: the C objects (poll, client, watch, timeout), the fields below and
  // `owner` are touched only on the threaded poll's thread (its callbacks) or under its lock.
  private let poll: OpaquePointer
  private let owner: Owner
  private let callbacks = AvahiCallbacks()
  private var client: OpaquePointer?
  private var busWatch: OpaquePointer?
  private var busWatchDescriptor: Int32 = -1
  private var retry: OpaquePointer?
  private var retryDelay: Int32 = 1000
  private var started = false
  private var stopped = false

  /// Nil when Avahi cannot make a threaded poll (out of memory or threads). `owner` moves onto
  /// the poll: nothing else may keep it.
  init?(owner: sending Owner) {
    guard let poll = avahi_threaded_poll_new() else { return nil }
    self.poll = poll
    self.owner = owner
    callbacks.clientChanged = { [unowned self] client, state in self.clientChanged(client, state) }
    callbacks.busMayHaveAppeared = { [unowned self] in self.busMayHaveAppeared() }
  }

  private var api: UnsafePointer<AvahiPoll> { avahi_threaded_poll_get(poll) }
  private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(callbacks).toOpaque() }

  /// Connects (or starts waiting) and starts the poll's thread. Once only.
  func start() {
    let first = withPollLock { () -> Bool in
      guard !started, !stopped else { return false }
      started = true
      return true
    }
    guard first else { return }
    // Before the thread runs, this thread owns every object: no lock needed (nor allowed to be
    // held across avahi_threaded_poll_start).
    connect()
    avahi_threaded_poll_start(poll)
  }

  /// Runs `body` with the poll's lock held (never from the poll's own thread).
  func withLock<T>(_ body: (Owner) -> T) -> T {
    avahi_threaded_poll_lock(poll)
    defer { avahi_threaded_poll_unlock(poll) }
    return body(owner)
  }

  /// Runs `body` with the poll's lock held, for this connection's own fields.
  private func withPollLock<T>(_ body: () -> T) -> T {
    avahi_threaded_poll_lock(poll)
    defer { avahi_threaded_poll_unlock(poll) }
    return body()
  }

  /// Stops the thread and frees the client (and with it every entry group and browser).
  func stop() {
    let running = withPollLock { () -> Bool in
      let was = started && !stopped
      stopped = true
      return was
    }
    guard running else { return }
    avahi_threaded_poll_stop(poll)
    // The thread has ended: this thread owns everything now.
    dropClient()
    cancelBusWait()
  }

  deinit {
    stop()
    avahi_threaded_poll_free(poll)
  }

  private func connect() {
    var error: Int32 = 0
    let made = avahi_client_new(api, AVAHI_CLIENT_NO_FAIL, avahiClientCallback, userdata, &error)
    guard let made else {
      // NO_FAIL covers a missing daemon, not a missing bus.
      owner.connectionChanged(
        .waiting(
          "no D-Bus system bus at \(AvahiBus.socketPath) (\(avahiErrorText(error))): start dbus and avahi-daemon"))
      waitForBus()
      return
    }
    client = made
    retryDelay = 1000
  }

  private func dropClient() {
    guard let client else { return }
    owner.connectionChanged(.lost)
    avahi_client_free(client)
    self.client = nil
  }

  private func clientChanged(_ changed: OpaquePointer, _ state: AvahiClientState) {
    switch state {
    case AVAHI_CLIENT_S_RUNNING:
      owner.connectionChanged(.running(changed))
    case AVAHI_CLIENT_S_REGISTERING, AVAHI_CLIENT_S_COLLISION:
      owner.connectionChanged(.suspended)
    case AVAHI_CLIENT_CONNECTING:
      owner.connectionChanged(.waiting("avahi-daemon is not running (not on the D-Bus system bus)"))
    case AVAHI_CLIENT_FAILURE:
      let error = avahi_client_errno(changed)
      // During avahi_client_new the client is not ours yet; it is freed by Avahi then.
      if client == changed { dropClient() }
      if Int(error) == Int(AVAHI_ERR_DISCONNECTED) {
        // The daemon (or the bus) went away: a new client waits for it (NO_FAIL).
        connect()
      } else {
        owner.connectionChanged(.failed(avahiErrorText(error)))
      }
    default:
      break
    }
  }

  /// Waits, without polling, for the bus socket to appear: inotify on the nearest folder of its
  /// path that exists. When the socket file is there but refused us (a stale socket, or a bus
  /// caught between bind and listen), a retry timer with back-off covers what inotify cannot see.
  private func waitForBus() {
    cancelBusWait()
    var folder = AvahiBus.socketPath
    repeat {
      folder = parentFolder(of: folder)
    } while access(folder, F_OK) != 0 && folder != "/"
    let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    if descriptor >= 0,
      inotify_add_watch(descriptor, folder, UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF)) >= 0
    {
      busWatchDescriptor = descriptor
      busWatch = api.pointee.watch_new(api, descriptor, AVAHI_WATCH_IN, avahiBusWatchCallback, userdata)
    } else if descriptor >= 0 {
      close(descriptor)
    }
    if access(AvahiBus.socketPath, F_OK) == 0 || busWatch == nil {
      var when = timeval()
      avahi_elapse_time(&when, UInt32(retryDelay), 0)
      retry = api.pointee.timeout_new(api, &when, avahiRetryCallback, userdata)
      retryDelay = min(retryDelay * 2, 60_000)
    }
  }

  private func cancelBusWait() {
    if let busWatch { api.pointee.watch_free(busWatch) }
    busWatch = nil
    if busWatchDescriptor >= 0 { close(busWatchDescriptor) }
    busWatchDescriptor = -1
    if let retry { api.pointee.timeout_free(retry) }
    retry = nil
  }

  private func busMayHaveAppeared() {
    cancelBusWait()
    guard !stopped, client == nil else { return }
    connect()
  }

  private func parentFolder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
    return String(path[..<slash])
  }
}

private func callbacks(_ userdata: UnsafeMutableRawPointer?) -> AvahiCallbacks {
  Unmanaged<AvahiCallbacks>.fromOpaque(userdata!).takeUnretainedValue()
}

private let avahiClientCallback: AvahiClientCallback = { client, state, userdata in
  guard let client else { return }
  callbacks(userdata).clientChanged(client, state)
}

private let avahiBusWatchCallback: AvahiWatchCallback = { _, _, _, userdata in
  callbacks(userdata).busMayHaveAppeared()
}

private let avahiRetryCallback: AvahiTimeoutCallback = { _, userdata in
  callbacks(userdata).busMayHaveAppeared()
}
