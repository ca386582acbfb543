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
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "cannot create a socket: errno \(errno)") }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      let bytes = Array(path.utf8.prefix(raw.count - 1))
      raw.copyBytes(from: bytes + [0])
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else { throw Failure(description: "cannot connect to \(path)") }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let bytes = Array(request.utf8)
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var answer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while !isComplete(String(decoding: answer, as: UTF8.self)) {
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { break }
      answer += chunk.prefix(count)
    }
    return String(decoding: answer, as: UTF8.self)
  }
}
