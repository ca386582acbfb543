#if canImport(Glibc)
  import Glibc
#endif

/// A TCP socket bound to 127.0.0.1 on a port the system chose: what `PortReservation` and
/// `SilentListener` hold.
enum LoopbackSocket {
  /// The descriptor and its port. `reuseAddress` sets SO_REUSEADDR; `backlog` makes it listen.
  static func bound(reuseAddress: Bool = false, backlog: Int32? = nil) throws -> (descriptor: Int32, port: Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    if reuseAddress {
      var yes: Int32 = 1
      setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    }
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
    guard descriptor >= 0, bound == 0, named == 0, backlog.map({ listen(descriptor, $0) == 0 }) ?? true else {
      let error = errno
      if descriptor >= 0 { close(descriptor) }
      throw RawConnectionError(
        description: "cannot \(backlog == nil ? "bind" : "listen on") a TCP port on 127.0.0.1: errno \(error)")
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
  }
}
