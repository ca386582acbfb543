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
/// commands talk to it.
public final class ControlServer: Sendable {
  let path: String
  let hub: Hub
  let reload: @Sendable () -> Result<ReloadSummary, ConfigErrors>
  private let logger = Logger(label: "control")
  private let listening = Atomic<Int32>(-1)

  public init(path: String, hub: Hub, reload: @escaping @Sendable () -> Result<ReloadSummary, ConfigErrors>) {
    self.path = path
    self.hub = hub
    self.reload = reload
  }

  public func start() throws(ControlError) {
    let directory = (path as NSString).deletingLastPathComponent
    try? FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
    unlink(path)
    guard var address = UnixStream.address(path) else { throw ControlError("control socket path too long: \(path)") }
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    listening.store(listener, ordering: .releasing)
    // Created with 0660 from the start: no window in which others could connect.
    let previous = umask(0o117)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    umask(previous)
    guard bound == 0, listen(listener, 16) == 0 else {
      throw ControlError("cannot listen on \(path): \(String(cString: strerror(errno)))")
    }
    chmod(path, 0o660)
    let thread = Thread { [self] in acceptLoop() }
    thread.name = "patchbay-control"
    thread.start()
    logger.info("control socket at \(path)")
  }

  public func stop() {
    let listener = listening.load(ordering: .acquiring)
    if listener >= 0 { shutdown(listener, Int32(SHUT_RDWR)) }
    unlink(path)
  }

  private func acceptLoop() {
    let listener = listening.load(ordering: .acquiring)
    while true {
      let client = accept(listener, nil, nil)
      if client < 0 {
        if errno == EINTR || errno == ECONNABORTED { continue }
        return
      }
      // Not inherited by plugin processes spawned later.
      _ = fcntl(client, F_SETFD, FD_CLOEXEC)
      let stream = UnixStream(descriptor: client)
      let thread = Thread { [self] in serve(stream) }
      thread.start()
    }
  }

  private func serve(_ stream: UnixStream) {
    defer { stream.close() }
    guard let line = stream.readLine() else { return }
    guard let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(line.utf8)) else {
      respond(stream, ControlResponse(ok: false, message: "bad request: expected one JSON object per line"))
      return
    }
    switch request.command {
    case .status:
      respond(stream, ControlResponse(ok: true, status: hub.status()))
    case .send:
      guard let text = request.address, let address = PortAddress(text), let value = request.value else {
        respond(stream, ControlResponse(ok: false, message: "send needs an address INSTANCE.PORT and a value"))
        return
      }
      do throws(ControlError) {
        try hub.send(value, to: address)
        respond(stream, ControlResponse(ok: true, message: "sent \(value) to \(address)"))
      } catch {
        respond(stream, ControlResponse(ok: false, message: error.description))
      }
    case .restart:
      do throws(ControlError) {
        try hub.restart(instance: request.instance ?? "")
        respond(stream, ControlResponse(ok: true, message: "restarting \(request.instance ?? "")"))
      } catch {
        respond(stream, ControlResponse(ok: false, message: error.description))
      }
    case .reload:
      switch reload() {
      case .success(let summary): respond(stream, ControlResponse(ok: true, message: "\(summary)", reload: summary))
      case .failure(let errors):
        respond(stream, ControlResponse(ok: false, message: "reload refused; the running hub is unchanged:\n\(errors)"))
      }
    case .routes:
      respond(stream, ControlResponse(ok: true, routes: hub.routeGraph()))
    case .log:
      let records = RecentLog.shared.last(
        min(request.lines ?? 200, RecentLog.shared.capacity), instance: request.instance, level: request.level)
      respond(stream, ControlResponse(ok: true, log: records))
    case .values:
      respond(stream, ControlResponse(ok: true, values: hub.portValues()))
    case .watch:
      respond(stream, ControlResponse(ok: true, message: "watching"))
      let feed = WatchFeed()
      let id = hub.watch(pattern: request.pattern ?? "*") { line in feed.push(line) }
      let written = DispatchSemaphore(value: 0)
      let writer = Thread {
        while let line = feed.next() {
          if !stream.writeLine(line) { break }
        }
        feed.close()
        written.signal()
      }
      writer.name = "patchbay-watch-writer"
      writer.start()
      // Wait until the client goes away (a read returns end of stream).
      while stream.readLine() != nil {}
      hub.unwatch(id)
      feed.close()
      // A write still blocked on a client that stopped reading ends here, before the close.
      _ = shutdown(stream.descriptor, Int32(SHUT_RDWR))
      written.wait()
    }
  }

  private func respond(_ stream: UnixStream, _ response: ControlResponse) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    guard let data = try? encoder.encode(response) else { return }
    stream.writeLine(String(decoding: data, as: UTF8.self))
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
