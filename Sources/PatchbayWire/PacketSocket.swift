import CProcessControl
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One end of a Unix SOCK_SEQPACKET socket: message boundaries are kept by the kernel, so one
/// `send` is one frame. Sends from several threads are safe (each is atomic); `receive` is
/// called by one reader thread at a time (it reuses one buffer).
public final class PacketSocket: Sendable {
  public let descriptor: Int32
  /// Allocated once: a fresh zeroed 64 KiB array per frame was the hub's largest cost per
  /// message (docs/BENCHMARKS.md).
  private let receiveBuffer = Mutex<UnsafeMutableRawBufferPointer?>(nil)

  public init(descriptor: Int32) { self.descriptor = descriptor }

  deinit { receiveBuffer.withLock { $0?.deallocate() } }

  /// A connected pair, close-on-exec.
  public static func pair() throws(SocketError) -> (PacketSocket, PacketSocket) {
    var fds: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
      throw SocketError(operation: "socketpair", errno: errno)
    }
    return (PacketSocket(descriptor: fds[0]), PacketSocket(descriptor: fds[1]))
  }

  public enum ReceiveResult: Sendable {
    case frame([UInt8])
    /// The frame was larger than the limit; it has been consumed and discarded.
    case oversized(Int)
    case closed
  }

  /// Blocks for the next frame.
  public func receive(limit: Int = WireProtocol.maximumFrameBytes) -> ReceiveResult {
    receiveBuffer.withLock { receiveBuffer in
      if let existing = receiveBuffer, existing.count < limit + 1 {
        existing.deallocate()
        receiveBuffer = nil
      }
      let buffer = receiveBuffer ?? .allocate(byteCount: limit + 1, alignment: 8)
      receiveBuffer = buffer
      return receive(into: buffer, limit: limit)
    }
  }

  private func receive(into buffer: UnsafeMutableRawBufferPointer, limit: Int) -> ReceiveResult {
    while true {
      let count = recv(descriptor, buffer.baseAddress, limit + 1, Int32(MSG_TRUNC))
      if count > 0 {
        if count > limit { return .oversized(count) }
        return .frame(Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count])))
      }
      if count == 0 { return .closed }
      if errno == EINTR { continue }
      return .closed
    }
  }

  /// Sends one frame; false when the peer is gone.
  @discardableResult
  public func send(_ frame: [UInt8]) -> Bool { frame.withUnsafeBytes { send($0) } }

  /// Sends one frame from memory the caller owns (an encoder's stack buffer).
  @discardableResult
  public func send(_ frame: UnsafeRawBufferPointer) -> Bool {
    while true {
      let sent = Glibc.send(descriptor, frame.baseAddress, frame.count, Int32(MSG_NOSIGNAL))
      if sent == frame.count { return true }
      if sent < 0, errno == EINTR { continue }
      return false
    }
  }

  public enum SendResult: Sendable {
    case sent
    /// The peer's receive queue is full; nothing was sent.
    case wouldBlock
    case closed
  }

  /// Sends one frame if that does not block.
  public func trySend(_ frame: [UInt8]) -> SendResult { frame.withUnsafeBytes { trySend($0) } }

  /// Sends one frame from memory the caller owns, if that does not block.
  public func trySend(_ frame: UnsafeRawBufferPointer) -> SendResult {
    while true {
      let sent = Glibc.send(descriptor, frame.baseAddress, frame.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
      if sent == frame.count { return .sent }
      if sent < 0, errno == EINTR { continue }
      if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
      return .closed
    }
  }

  /// Sends frames in order, as many as fit without blocking, with one system call per 64
  /// (`sendmmsg`): how many went out, or nil when the peer is gone before the first.
  public func trySend(frames: [[UInt8]]) -> Int? {
    if frames.count == 1 {
      switch trySend(frames[0]) {
      case .sent: return 1
      case .wouldBlock: return 0
      case .closed: return nil
      }
    }
    return Self.joining(frames) { send(joined: $0, lengths: $1, flags: Int32(MSG_DONTWAIT)) }
  }

  /// Sends frames in order, blocking while the socket is full, one system call per 64: how
  /// many went out (fewer: the peer went away), or nil when it was gone before the first.
  public func send(frames: [[UInt8]]) -> Int? {
    Self.joining(frames) { send(joined: $0, lengths: $1, flags: 0) }
  }

  /// `trySend(frames:)` of frames written one after the other in `joined`, `lengths` long.
  public func trySend(joined: UnsafeRawBufferPointer, lengths: UnsafeBufferPointer<Int>) -> Int? {
    send(joined: joined, lengths: lengths, flags: Int32(MSG_DONTWAIT))
  }

  /// `send(frames:)` of frames written one after the other in `joined`, `lengths` long.
  public func send(joined: UnsafeRawBufferPointer, lengths: UnsafeBufferPointer<Int>) -> Int? {
    send(joined: joined, lengths: lengths, flags: 0)
  }

  private static func joining<Result>(
    _ frames: [[UInt8]], _ body: (UnsafeRawBufferPointer, UnsafeBufferPointer<Int>) -> Result
  ) -> Result {
    let joined = frames.reduce(into: [UInt8]()) { $0.append(contentsOf: $1) }
    let lengths = frames.map(\.count)
    return joined.withUnsafeBytes { bytes in lengths.withUnsafeBufferPointer { body(bytes, $0) } }
  }

  private func send(joined: UnsafeRawBufferPointer, lengths: UnsafeBufferPointer<Int>, flags: Int32) -> Int? {
    var sent = 0
    var offset = 0
    while sent < lengths.count {
      let chunk = min(Self.framesPerCall, lengths.count - sent)
      let count = withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: chunk) { starts in
        var start = offset
        for index in 0..<chunk {
          starts.initializeElement(
            at: index, to: joined.baseAddress.map { ($0 + start).assumingMemoryBound(to: UInt8.self) })
          start += lengths[sent + index]
        }
        return pc_send_frames(descriptor, starts.baseAddress, lengths.baseAddress! + sent, UInt32(chunk), flags)
      }
      if count < 0 {
        if errno == EAGAIN || errno == EWOULDBLOCK { return sent }
        return sent == 0 ? nil : sent
      }
      for index in 0..<Int(count) { offset += lengths[sent + index] }
      sent += Int(count)
      // Short without an error: the socket filled (non-blocking) or a signal came (blocking:
      // the loop goes on).
      if Int(count) < chunk, flags & Int32(MSG_DONTWAIT) != 0 { return sent }
    }
    return sent
  }

  /// What `pc_send_frames` takes at most per call.
  public static let framesPerCall = 64

  /// Ends both directions: a thread blocked in `receive` returns `.closed`.
  public func shutdown() { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }

  public func close() { _ = Glibc.close(descriptor) }
}

public struct SocketError: Error, Sendable, CustomStringConvertible {
  public var operation: String
  public var errno: Int32
  public init(operation: String, errno: Int32) {
    self.operation = operation
    self.errno = errno
  }
  public var description: String { "\(operation): \(String(cString: strerror(errno)))" }
}
