import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP listener on 127.0.0.1 that never accepts: connections complete (the kernel's
/// backlog) and nothing ever answers. An accessory that hangs.
final class SilentListener: Sendable {
  let port: Int
  private let descriptor: Int32

  init() throws {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
    guard descriptor >= 0, bound == 0, named == 0, listen(descriptor, 8) == 0 else {
      if descriptor >= 0 { close(descriptor) }
      throw RawConnectionError(description: "cannot listen: errno \(errno)")
    }
    self.descriptor = descriptor
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  deinit { close(descriptor) }
}
