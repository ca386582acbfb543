import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One request over a simulator's Unix control socket: connect, send text, read until the
/// answer is complete (as the caller's `isComplete` decides) or the peer closes.
public enum ControlSocketClient {
  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  public static func exchange(
    path: String, request: String, timeoutSeconds: Int = 30, isComplete: (String) -> Bool
  ) throws -> String {
    let connection = try Connection(path: path, timeoutSeconds: timeoutSeconds)
    connection.send(request)
    return connection.read(until: isComplete)
  }

  /// One raw connection to a control socket, for tests that hold it open, half-close it or
  /// never read it.
  public final class Connection {
    public let descriptor: Int32
    private var received: [UInt8] = []

    public init(path: String, timeoutSeconds: Int = 30) throws {
      descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
      guard descriptor >= 0 else { throw Failure(description: "cannot create a socket: errno \(errno)") }
      var address = sockaddr_un()
      address.sun_family = sa_family_t(AF_UNIX)
      withUnsafeMutableBytes(of: &address.sun_path) { raw in
        let bytes = Array(path.utf8.prefix(raw.count - 1))
        raw.copyBytes(from: bytes + [0])
      }
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      guard connected == 0 else {
        close(descriptor)
        throw Failure(description: "cannot connect to \(path)")
      }
      var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
      setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    public func send(_ text: String) {
      let bytes = Array(text.utf8)
      _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Says "no more requests" (`shutdown(SHUT_WR)`), as `socat` or `nc -N` do after a line.
    public func closeSending() { _ = shutdown(descriptor, Int32(SHUT_WR)) }

    /// Everything received so far once `isComplete` holds, or at the end of the stream or the
    /// receive timeout.
    public func read(until isComplete: (String) -> Bool) -> String {
      var chunk = [UInt8](repeating: 0, count: 4096)
      while !isComplete(String(decoding: received, as: UTF8.self)) {
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { break }
        received += chunk.prefix(count)
      }
      return String(decoding: received, as: UTF8.self)
    }
  }
}
