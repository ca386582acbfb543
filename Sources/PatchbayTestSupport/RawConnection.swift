import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A plain TCP connection to the server for bytes no controller would send.
public final class RawConnection: Sendable {
  public let descriptor: Int32

  public init(host: String = "127.0.0.1", port: Int) throws {
    descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr(host)
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else {
      close(descriptor)
      throw RawConnectionError(description: "connect: errno \(errno)")
    }
  }

  deinit { close(descriptor) }

  /// Writes what the peer takes (it may close half-way: that is fine here).
  public func send(_ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if written <= 0 { return }
      offset += written
    }
  }

  public func send(_ text: String) { send(Array(text.utf8)) }

  /// Reads until the peer closes (true) or `seconds` pass or `text` arrived (false); what
  /// arrived is in `received`.
  public func readUntilClosed(within seconds: Double, orUntil text: String? = nil) -> (closed: Bool, received: [UInt8])
  {
    var received: [UInt8] = []
    let deadline = Date().addingTimeInterval(seconds)
    var buffer = [UInt8](repeating: 0, count: 65536)
    while Date() < deadline {
      if let text, String(decoding: received, as: UTF8.self).contains(text) { return (false, received) }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000)))
      if ready <= 0 { continue }
      let count = recv(descriptor, &buffer, buffer.count, 0)
      if count <= 0 { return (true, received) }
      received += buffer[0..<count]
    }
    return (false, received)
  }

  /// Reads until `text` has arrived (the connection stays open).
  public func read(until text: String, within seconds: Double) -> String {
    var received: [UInt8] = []
    let deadline = Date().addingTimeInterval(seconds)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while Date() < deadline, !String(decoding: received, as: UTF8.self).contains(text) {
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 100) > 0 else { continue }
      let count = recv(descriptor, &buffer, buffer.count, 0)
      if count <= 0 { break }
      received += buffer[0..<count]
    }
    return String(decoding: received, as: UTF8.self)
  }
}

public struct RawConnectionError: Error, CustomStringConvertible {
  public var description: String
  public init(description: String) { self.description = description }
}
