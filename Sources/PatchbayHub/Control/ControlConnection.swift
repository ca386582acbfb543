import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One client of the control socket, driven by Dispatch sources on the server's serial queue:
/// no thread of its own. It reads the request line, hands it to `serve` (on the server's work
/// queue: a reload may wait on plugins), and writes what `serve` answers as the socket takes
/// it. It ends when the answer is written, or, for `watch`, when the client goes away, or when
/// no whole request line came within the idle time (`ControlAdmission`).
final class ControlConnection: Sendable {
  /// What a request's handler can do with its connection.
  struct Reply: Sendable {
    fileprivate let connection: ControlConnection
    /// One line to the client.
    func send(_ line: String) { connection.write(line, last: false) }
    /// The last line: the connection closes once it is written.
    func finish(_ line: String) { connection.write(line, last: true) }
    /// Streams the feed's lines until the client goes away; `ended` runs then.
    func stream(_ feed: WatchFeed, ended: @escaping @Sendable () -> Void) { connection.attach(feed, ended: ended) }
    /// The feed has lines (its `push` announces them so).
    func linesWaiting() { connection.linesWaiting() }
  }

  private struct State {
    var input: [UInt8] = []
    var requestTaken = false
    var output: [UInt8] = []
    var written = 0
    var lastQueued = false
    var feed: WatchFeed?
    var feedEnded: (@Sendable () -> Void)?
    /// The client closed its side (or its socket failed).
    var clientDone = false
    var ended = false
  }

  /// A request line longer than this is no request.
  static let requestLimit = 64 * 1024

  private let descriptor: Int32
  private let queue: DispatchQueue
  private let work: DispatchQueue
  private let sources: Mutex<Sources>
  private let state = Mutex(State())
  private let serve: @Sendable (String, Reply) -> Void
  private let idleSeconds: Int
  private let lifecycle: Lifecycle

  /// What the server is told: the request line came (the connection is no longer idle), and the
  /// connection ended (its place is free). Each at most once, on the server's queue.
  struct Lifecycle: Sendable {
    var requested: @Sendable () -> Void
    var ended: @Sendable () -> Void
  }

  /// Takes a non-blocking, close-on-exec client socket; `serve` answers its request line, which
  /// must come within `idleSeconds`.
  init(
    descriptor: Int32, queue: DispatchQueue, work: DispatchQueue, idleSeconds: Int, lifecycle: Lifecycle,
    serve: @escaping @Sendable (String, Reply) -> Void
  ) {
    self.descriptor = descriptor
    self.queue = queue
    self.work = work
    self.serve = serve
    self.idleSeconds = idleSeconds
    self.lifecycle = lifecycle
    sources = Mutex(
      Sources(
        reader: DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue),
        writer: DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: queue),
        idle: DispatchSource.makeTimerSource(queue: queue)))
  }

  /// The connection's two Dispatch sources (not `Sendable` themselves: kept behind the mutex),
  /// and whether the write source runs (suspend and resume must pair up).
  private struct Sources {
    let reader: any DispatchSourceRead
    let writer: any DispatchSourceWrite
    /// Fires when the request line has not come in time.
    let idle: any DispatchSourceTimer
    var writing = false
  }

  func start() {
    sources.withLock { sources in
      sources.reader.setEventHandler { [self] in readable() }
      sources.writer.setEventHandler { [self] in flush() }
      // The descriptor is closed only when both sources are done with it.
      let group = DispatchGroup()
      group.enter()
      group.enter()
      sources.reader.setCancelHandler { group.leave() }
      sources.writer.setCancelHandler { group.leave() }
      group.notify(queue: queue) { [descriptor] in _ = close(descriptor) }
      sources.idle.setEventHandler { [self] in idleTimeReached() }
      sources.idle.schedule(deadline: .now() + .seconds(idleSeconds))
      sources.idle.activate()
      sources.reader.activate()
    }
  }

  // MARK: On the server's queue

  private func readable() {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count > 0 {
        take(buffer[0..<count])
        continue
      }
      if count < 0, errno == EINTR { continue }
      if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
      // End of stream or an error. A client may close its side once it has asked (`socat`,
      // `nc -N`): the answer is still written. A watch ends.
      let answerPending = state.withLock { state in
        state.clientDone = true
        return count == 0 && state.requestTaken && state.feed == nil && !state.ended
      }
      if answerPending { sources.withLock { $0.reader.cancel() } } else { end() }
      return
    }
  }

  /// Bytes from the client: the first line is the request; what follows it is not read.
  private func take(_ bytes: ArraySlice<UInt8>) {
    let request: String? = state.withLock { state in
      guard !state.requestTaken else { return nil }
      state.input.append(contentsOf: bytes)
      if let newline = state.input.firstIndex(of: UInt8(ascii: "\n")) {
        state.requestTaken = true
        return String(decoding: state.input[..<newline], as: UTF8.self)
      }
      if state.input.count > Self.requestLimit {
        state.requestTaken = true
        return String(decoding: state.input, as: UTF8.self)
      }
      return nil
    }
    guard let request else { return }
    sources.withLock { $0.idle.cancel() }
    lifecycle.requested()
    let reply = Reply(connection: self)
    work.async { [serve] in serve(request, reply) }
  }

  /// No whole request line in time: the connection ends, its descriptor is the hub's again.
  private func idleTimeReached() {
    if !state.withLock({ $0.requestTaken }) { end() }
  }

  /// On the server's queue: ends the connection now (its place is wanted by a new one).
  func drop() { end() }

  /// Writes what waits, then the feed's lines, as far as the socket takes them.
  private func flush() {
    while true {
      let next: (pending: Bool, done: Bool) = state.withLock { state in
        if state.ended { return (false, false) }
        if state.written == state.output.count {
          state.output.removeAll(keepingCapacity: true)
          state.written = 0
          if let line = state.feed?.take() {
            state.output = Array((line + "\n").utf8)
          }
        }
        return (state.written < state.output.count, state.lastQueued && state.written == state.output.count)
      }
      if next.done {
        end()
        return
      }
      guard next.pending else {
        pauseWriting()
        return
      }
      let sent = state.withLock { state in
        state.output.withUnsafeBytes { bytes in
          send(descriptor, bytes.baseAddress! + state.written, bytes.count - state.written, Int32(MSG_NOSIGNAL))
        }
      }
      if sent > 0 {
        state.withLock { $0.written += sent }
        continue
      }
      if sent < 0, errno == EINTR { continue }
      if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK {
        // Wait for room: the write source calls `flush` again.
        resumeWriting()
        return
      }
      end()
      return
    }
  }

  private func resumeWriting() {
    sources.withLock { sources in
      if !sources.writing { sources.writer.resume() }
      sources.writing = true
    }
  }

  private func pauseWriting() {
    sources.withLock { sources in
      if sources.writing { sources.writer.suspend() }
      sources.writing = false
    }
  }

  /// Once: the watch ends, both sources end (a suspended one is resumed first, as Dispatch
  /// requires), and then the descriptor is closed.
  private func end() {
    let (first, feed, ended) = state.withLock { state in
      defer { state.ended = true }
      return (!state.ended, state.feed, state.feedEnded)
    }
    guard first else { return }
    feed?.close()
    ended?()
    lifecycle.ended()
    sources.withLock { sources in
      sources.idle.cancel()
      sources.reader.cancel()
      sources.writer.cancel()
      if !sources.writing { sources.writer.resume() }
      sources.writing = true
    }
  }

  // MARK: From the work queue and routing threads

  private func write(_ line: String, last: Bool) {
    state.withLock { state in
      state.output.append(contentsOf: (line + "\n").utf8)
      if last { state.lastQueued = true }
    }
    queue.async { [self] in flush() }
  }

  private func attach(_ feed: WatchFeed, ended: @escaping @Sendable () -> Void) {
    let (alreadyEnded, clientDone) = state.withLock { state in
      state.feed = feed
      state.feedEnded = ended
      return (state.ended, state.clientDone)
    }
    if alreadyEnded {
      feed.close()
      ended()
    } else if clientDone {
      // The client left before its watch began.
      queue.async { [self] in end() }
    } else {
      // Lines announced before the feed was attached are taken now.
      queue.async { [self] in flush() }
    }
  }

  /// For the feed: lines are waiting.
  func linesWaiting() { queue.async { [self] in flush() } }
}
