#if canImport(Glibc)
  import Glibc
#endif

/// A TCP port on 127.0.0.1 held bound but never listening, for a test whose client must find
/// nothing there before its peer starts: connections are refused until a simulator started
/// with `--port` on it listens there. Both sockets set SO_REUSEADDR, which lets a listener
/// share a port with a socket that does not listen. Unlike a port found free and closed
/// again, no other process can take it meanwhile.
public final class PortReservation: Sendable {
  public let port: Int
  private let descriptor: Int32

  public init() throws {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var yes: Int32 = 1
    setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard descriptor >= 0, bound == 0, named == 0 else {
      if descriptor >= 0 { close(descriptor) }
      throw SimulatorControlError(description: "cannot reserve a TCP port: errno \(errno)")
    }
    self.descriptor = descriptor
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  deinit { close(descriptor) }
}
