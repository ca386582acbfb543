import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The programs the demo runs: this `patchbay` and `patchbay-sim` beside it (a `swift build`
/// tree) or in the installed layout.
struct DemoTools {
  let patchbay: String
  let simulator: String

  init() throws {
    let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    patchbay = own
    let directory = (own as NSString).deletingLastPathComponent
    let candidates = [directory + "/patchbay-sim", "/usr/lib/patchbay/patchbay-sim", "/usr/bin/patchbay-sim"]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
      throw DemoError(
        "patchbay-sim not found (looked in \(candidates.joined(separator: ", "))); build it with `swift build`")
    }
    simulator = found
  }

  /// A TCP port that was free a moment ago.
  static func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
