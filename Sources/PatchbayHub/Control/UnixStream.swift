import Foundation
import PatchbayCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A connected Unix stream socket with line-oriented reads and writes.
public final class UnixStream: Sendable {
  let descriptor: Int32
  /// Bytes read past the last line; one reader at a time.
  private let received = Mutex<[UInt8]>([])
  /// Whole lines: two writers (a watch feed and an answer) never interleave inside one.
  private let writing = Mutex(())

  public init(descriptor: Int32) { self.descriptor = descriptor }

  static func address(_ path: String) -> sockaddr_un? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    return address
  }

  /// Connects to a listening socket at `path`.
  public static func connect(to path: String) throws(ControlError) -> UnixStream {
    guard var address = address(path) else { throw ControlError("socket path too long: \(path)") }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else {
      let code = errno
      let reason = String(cString: strerror(code))
      Glibc.close(fd)
      if code == EACCES {
        throw ControlError(
          "cannot reach the hub at \(path): permission denied. The hub is there, but its control socket is for "
            + "its user and group only: join group 'patchbay' (sudo adduser $USER patchbay, then log in again), "
            + "or run the command as root")
      }
      throw ControlError("cannot reach the hub at \(path): \(reason) (is `patchbay run` running with this config?)")
    }
    return UnixStream(descriptor: fd)
  }

  /// The next line without its newline; nil at end of stream. Lines over 1 MiB end the stream.
  public func readLine() -> String? {
    received.withLock { buffer in Self.readLine(from: descriptor, buffer: &buffer) }
  }

  private static func readLine(from descriptor: Int32, buffer: inout [UInt8]) -> String? {
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return line
      }
      guard buffer.count < 1 << 20 else { return nil }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return nil }
      buffer += chunk[..<count]
    }
  }

  @discardableResult
  public func writeLine(_ line: String) -> Bool {
    let bytes = Array((line + "\n").utf8)
    return writing.withLock { _ in
      var offset = 0
      while offset < bytes.count {
        let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent < 0, errno == EINTR { continue }
        guard sent > 0 else { return false }
        offset += sent
      }
      return true
    }
  }

  public func close() { _ = Glibc.close(descriptor) }
}
