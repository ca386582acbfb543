import Foundation
import Logging
import PatchbayCore
import PatchbayValues
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The hub's control socket: a Unix stream socket, mode 0660 (owner and group only), speaking
/// one JSON request line per connection. The CLI's status, send, watch, reload and restart
/// commands talk to it. Connections are driven by Dispatch sources on one serial queue (no
/// thread per connection); requests run on a work queue, since a reload may wait on plugins.
/// How many connections it holds, and for how long an idle one, is `ControlAdmission`'s.
public final class ControlServer: Sendable {
  let path: String
  let hub: Hub
  let reload: @Sendable () -> Result<ReloadSummary, ConfigErrors>
  private let logger = Logger(label: "control")
  private let queue = DispatchQueue(label: "patchbay.control")
  private let work = DispatchQueue(label: "patchbay.control.requests", attributes: .concurrent)
  private let listener = Mutex<(any DispatchSourceRead)?>(nil)
  let admission: ControlAdmission
  private let lastUnnamedRefusalLog = Mutex<Date?>(nil)

  /// The connections open now, oldest first; changed on the server's queue only.
  private struct Connections {
    var open: [ControlAdmission.Open] = []
    var bySerial: [UInt64: ControlConnection] = [:]
    var nextSerial: UInt64 = 0
    /// A descriptor held back for the moment the hub has none left: closed to accept (and at
    /// once close) a connection that would otherwise stay in the backlog and wake the listener
    /// again and again, then opened again.
    var spare: Int32 = -1
    var exhaustionLogged = false
  }
  private let connections = Mutex(Connections())

  /// The connection limits follow the process's descriptor limit at this point.
  public init(path: String, hub: Hub, reload: @escaping @Sendable () -> Result<ReloadSummary, ConfigErrors>) {
    self.path = path
    self.hub = hub
    self.reload = reload
    admission = .current()
  }

  public func start() throws(ControlError) {
    let directory = (path as NSString).deletingLastPathComponent
    try? FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
    try ControlSocketPath.claim(path)
    guard var address = UnixStream.address(path) else { throw ControlError("control socket path too long: \(path)") }
    let descriptor = socket(
      AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    // Created with 0660 from the start: no window in which others could connect.
    let previous = umask(0o117)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    umask(previous)
    guard bound == 0, listen(descriptor, 16) == 0 else {
      let reason = String(cString: strerror(errno))
      close(descriptor)
      throw ControlError("cannot listen on \(path): \(reason)")
    }
    chmod(path, 0o660)
    connections.withLock { $0.spare = open("/dev/null", O_RDONLY | O_CLOEXEC) }
    listener.withLock { listener in
      let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
      source.setEventHandler { [self] in acceptWaiting(on: descriptor) }
      source.setCancelHandler { close(descriptor) }
      source.activate()
      listener = source
    }
    logger.info(
      "control socket at \(path) (at most \(admission.total) connections, \(admission.perUser) per user; idle ones close after \(admission.idleSeconds) s)"
    )
  }

  public func stop() {
    let listened = listener.withLock { source in
      defer { source = nil }
      source?.cancel()
      return source != nil
    }
    // Only the socket this server made: a server that never listened leaves the path alone.
    if listened { unlink(path) }
  }

  /// On the server's queue: every connection the listener has waiting.
  private func acceptWaiting(on listener: Int32) {
    while true {
      let client = accept(listener, nil, nil)
      if client < 0 {
        if errno == EINTR || errno == ECONNABORTED { continue }
        if errno == EMFILE || errno == ENFILE { refuseWithoutDescriptors(on: listener) }
        return
      }
      if refuses(client) {
        close(client)
        continue
      }
      // Not inherited by plugin processes spawned later; never blocking the queue.
      _ = fcntl(client, F_SETFD, FD_CLOEXEC)
      _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
      connections.withLock { $0.exhaustionLogged = false }
      admit(client)
    }
  }

  /// The process is out of descriptors: the waiting connection is taken with the spare one and
  /// closed, so it is refused instead of waking the listener in a busy loop.
  private func refuseWithoutDescriptors(on listener: Int32) {
    let logNow = connections.withLock { state in
      if state.spare >= 0 { _ = close(state.spare) }
      let client = accept(listener, nil, nil)
      if client >= 0 { _ = close(client) }
      state.spare = open("/dev/null", O_RDONLY | O_CLOEXEC)
      defer { state.exhaustionLogged = true }
      return !state.exhaustionLogged
    }
    if logNow {
      logger.error("the hub has no file descriptor left: control connections are refused until some close")
    }
  }

  /// Admits a new client by the limits, closing the oldest idle connection when it takes its
  /// place, or refusing it when every place is busy.
  private func admit(_ client: Int32) {
    let user = Self.peerUser(client)
    let (serial, decision, dropped) = connections.withLock {
      state -> (UInt64, ControlAdmission.Decision, [ControlConnection]) in
      let decision = admission.decide(user: user, open: state.open)
      var dropped: [ControlConnection] = []
      if case .admitClosing(let serials) = decision {
        for serial in serials {
          state.open.removeAll { $0.serial == serial }
          if let connection = state.bySerial.removeValue(forKey: serial) { dropped.append(connection) }
        }
      }
      state.nextSerial += 1
      return (state.nextSerial, decision, dropped)
    }
    dropped.forEach { $0.drop() }
    if decision == .refuse {
      let line = #"{"message":"too many control connections: the hub is busy, try again","ok":false}"# + "\n"
      _ = line.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
      _ = close(client)
      logger.warning(
        "refused a control connection of uid \(user): every place is busy (at most \(admission.perUser) per user, \(admission.total) in all)"
      )
      return
    }
    let lifecycle = ControlConnection.Lifecycle(
      requested: { [self] in
        connections.withLock { state in
          if let index = state.open.firstIndex(where: { $0.serial == serial }) {
            state.open[index].waitingForRequest = false
          }
        }
      },
      ended: { [self] in
        connections.withLock { state in
          state.open.removeAll { $0.serial == serial }
          state.bySerial.removeValue(forKey: serial)
        }
      })
    let connection = ControlConnection(
      descriptor: client, queue: queue, work: work, idleSeconds: admission.idleSeconds, lifecycle: lifecycle
    ) { [self] line, reply in
      serve(line, reply)
    }
    connections.withLock { state in
      state.open.append(.init(serial: serial, user: user, waitingForRequest: true))
      state.bySerial[serial] = connection
    }
    connection.start()
  }

  /// The connecting process's user (SO_PEERCRED); an unreadable one counts as a user of its own.
  static func peerUser(_ descriptor: Int32) -> uid_t {
    // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Swift's Glibc does not import it).
    var credentials = [UInt32](repeating: 0, count: 3)
    var length = socklen_t(12)
    let read = credentials.withUnsafeMutableBytes {
      getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, $0.baseAddress, &length)
    }
    return read == 0 && length == 12 ? uid_t(credentials[1]) : uid_t.max
  }

  /// Whether `client` comes from a plugin (the hub's descendants): the control socket is not
  /// theirs, whatever group they run in.
  private func refuses(_ client: Int32) -> Bool {
    switch ControlPeer.of(socket: client) {
    case .outsider:
      return false
    case .descendant(let chain):
      let host = chain.last ?? 0
      if !hub.noteControlRefusal(hostPID: host, peer: chain[0]) {
        logRarely(
          "refused a control connection from process \(chain[0]), a descendant of the hub"
            + (ControlPeer.instanceMarker(of: chain[0]).map { " (instance '\($0)', by its environment)" } ?? ""))
      }
      return true
    case .vanished(let pid):
      // A process that connected and left at once (a second hub probing whether this one
      // runs, a `connect`-only health check) asked for nothing: there is nothing to refuse or
      // warn about. One that had already sent a request did try to use the socket, and is
      // counted in the warnings like any other refusal. Either way the connection is closed.
      if Self.hasSentData(client) {
        logRarely(
          "refused a control connection from process \(pid), which sent a request and was gone before it could be checked"
        )
      } else {
        logger.debug("closed a control connection from process \(pid), which was gone before it sent anything")
      }
      return true
    }
  }

  /// Whether the peer has written anything to `descriptor` yet (peeked, not consumed; never
  /// blocks). A peer that closed without writing reads as end of file: false.
  static func hasSentData(_ descriptor: Int32) -> Bool {
    var byte: UInt8 = 0
    return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
  }

  /// Refusals no instance can be named for: logged at most once a minute.
  private func logRarely(_ message: String) {
    let now = Date()
    let due = lastUnnamedRefusalLog.withLock { last in
      guard last.map({ now.timeIntervalSince($0) >= 60 }) ?? true else { return false }
      last = now
      return true
    }
    if due { logger.warning("\(message)") }
  }

  private func serve(_ line: String, _ reply: ControlConnection.Reply) {
    guard let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(line.utf8)) else {
      reply.finish(encode(ControlResponse(ok: false, message: "bad request: expected one JSON object per line")))
      return
    }
    switch request.command {
    case .status:
      reply.finish(encode(ControlResponse(ok: true, status: ResidentMemory.added(to: hub.status()))))
    case .send:
      guard let text = request.address, let address = PortAddress(text), let value = request.value else {
        reply.finish(encode(ControlResponse(ok: false, message: "send needs an address INSTANCE.PORT and a value")))
        return
      }
      do throws(ControlError) {
        try hub.send(value, to: address)
        reply.finish(encode(ControlResponse(ok: true, message: "sent \(value) to \(address)")))
      } catch {
        reply.finish(encode(ControlResponse(ok: false, message: error.description)))
      }
    case .restart:
      do throws(ControlError) {
        try hub.restart(instance: request.instance ?? "")
        reply.finish(encode(ControlResponse(ok: true, message: "restarting \(request.instance ?? "")")))
      } catch {
        reply.finish(encode(ControlResponse(ok: false, message: error.description)))
      }
    case .reload:
      switch reload() {
      case .success(let summary):
        reply.finish(encode(ControlResponse(ok: true, message: "\(summary)", reload: summary)))
      case .failure(let errors):
        reply.finish(
          encode(ControlResponse(ok: false, message: "reload refused; the running hub is unchanged:\n\(errors)")))
      }
    case .routes:
      reply.finish(encode(ControlResponse(ok: true, routes: hub.routeGraph())))
    case .log:
      let records = RecentLog.shared.last(
        min(request.lines ?? 200, RecentLog.shared.capacity), instance: request.instance, level: request.level)
      reply.finish(encode(ControlResponse(ok: true, log: records)))
    case .values:
      reply.finish(encode(ControlResponse(ok: true, values: hub.portValues(), inputs: hub.inputValues())))
    case .watch:
      reply.send(encode(ControlResponse(ok: true, message: "watching")))
      let feed = WatchFeed()
      let id = hub.watch(pattern: request.pattern ?? "*") { line in feed.push(line, announce: reply.linesWaiting) }
      reply.stream(feed) { [hub] in hub.unwatch(id) }
    }
  }

  private func encode(_ response: ControlResponse) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    guard let data = try? encoder.encode(response) else {
      return #"{"message":"the hub could not encode its answer","ok":false}"#
    }
    return String(decoding: data, as: UTF8.self)
  }
}

/// The CLI side of the control socket.
public enum ControlClient {
  public static func request(_ request: ControlRequest, socket path: String) throws(ControlError) -> ControlResponse {
    let stream = try UnixStream.connect(to: path)
    defer { stream.close() }
    try sendRequest(request, on: stream)
    guard let line = stream.readLine() else { throw ControlError("the hub closed the connection without answering") }
    return try decode(line)
  }

  /// `watch`: calls `onLine` for every streamed line until the hub goes away.
  public static func watch(pattern: String, socket path: String, onLine: (String) -> Void) throws(ControlError) {
    let stream = try UnixStream.connect(to: path)
    defer { stream.close() }
    try sendRequest(ControlRequest(command: .watch, pattern: pattern), on: stream)
    guard let first = stream.readLine() else { throw ControlError("the hub closed the connection") }
    let response = try decode(first)
    guard response.ok else { throw ControlError(response.message ?? "refused") }
    while let line = stream.readLine() { onLine(line) }
  }

  static func sendRequest(_ request: ControlRequest, on stream: UnixStream) throws(ControlError) {
    guard let data = try? JSONEncoder().encode(request), stream.writeLine(String(decoding: data, as: UTF8.self)) else {
      throw ControlError("cannot send the request to the hub")
    }
  }

  static func decode(_ line: String) throws(ControlError) -> ControlResponse {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    guard let response = try? decoder.decode(ControlResponse.self, from: Data(line.utf8)) else {
      throw ControlError("unreadable answer from the hub: \(line.prefix(200))")
    }
    return response
  }
}
