import Foundation
import PatchbayCore

#if canImport(Glibc)
  import Glibc
#endif

/// sd_notify without libsystemd: a datagram to $NOTIFY_SOCKET. Does nothing outside systemd.
public enum SystemdNotifier {
  public static func notify(_ state: String) {
    guard let path = ProcessInfo.processInfo.environment["NOTIFY_SOCKET"], !path.isEmpty else { return }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(path.utf8)
    // A leading '@' names an abstract socket.
    if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
    _ = state.withCString { text in
      withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, text, strlen(text), 0, $0, length) }
      }
    }
  }

  /// Half the watchdog interval systemd asked for, or nil without a watchdog.
  public static var watchdogInterval: Double? {
    guard let text = ProcessInfo.processInfo.environment["WATCHDOG_USEC"], let usec = Double(text), usec > 0 else {
      return nil
    }
    return usec / 2_000_000
  }
}
