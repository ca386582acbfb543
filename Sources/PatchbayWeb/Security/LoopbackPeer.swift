import Foundation
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// Who is at the other end of a loopback TCP connection, and whether that user may control
/// the hub without the token. Loopback alone does not say it: every local user can connect to
/// 127.0.0.1, while the hub's control socket (0660) lets in only its user, its group and root.
/// Without a token, patchbay-web serves a loopback client only when its user could use that
/// socket directly: root, patchbay-web's own user, or a member of the socket's group. Anyone
/// else needs the token, as over the network.
///
/// The client's user comes from the kernel's table of TCP sockets (/proc/self/net/tcp, tcp6): the
/// row whose local end is the client's address and whose remote end is ours names its owner.
/// In a user namespace of its own (systemd's `PrivateUsers=yes`) users it does not map show as
/// the overflow user (nobody): they are refused, which is the safe way to be wrong.
enum LoopbackPeer {
  /// The uid owning the client's socket of this connection; nil when it cannot be found.
  static func user(remote: SocketAddress?, local: SocketAddress?) -> uid_t? {
    guard let remote, let local, let remoteKey = key(remote), let localKey = key(local) else { return nil }
    // /proc/self/net, not /proc/net: the unit's ProcSubset=pid hides /proc/net (a link into
    // /proc/self), and every client would then be an unknown user, refused.
    for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
      guard let text = wholeFile(table) else { continue }
      for line in text.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count > 7, fields[1] == remoteKey, fields[2] == localKey else { continue }
        return uid_t(fields[7])
      }
    }
    return nil
  }

  /// A /proc file to its end. Foundation's `String(contentsOfFile:)` stops after the first
  /// read of a file whose size is 0 (as /proc's are): about 4 KiB, some 30 sockets.
  private static func wholeFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Whether `user` may use the control socket at `socketPath` itself.
  static func mayUseControlSocket(_ user: uid_t, socketPath: String) -> Bool {
    if user == 0 || user == geteuid() { return true }
    var info = stat()
    guard stat(socketPath, &info) == 0 else { return false }
    if info.st_uid == user { return true }
    return groups(of: user).contains(info.st_gid)
  }

  private static func groups(of user: uid_t) -> [gid_t] {
    guard let entry = getpwuid(user), let name = entry.pointee.pw_name else { return [] }
    var count: Int32 = 64
    var groups = [gid_t](repeating: 0, count: Int(count))
    if getgrouplist(name, entry.pointee.pw_gid, &groups, &count) < 0 {
      groups = [gid_t](repeating: 0, count: Int(count))
      guard getgrouplist(name, entry.pointee.pw_gid, &groups, &count) >= 0 else { return [] }
    }
    return Array(groups.prefix(Int(count)))
  }

  /// An address as /proc/net/tcp writes it: the address's 32-bit words in host order, in hex,
  /// then the port: `0100007F:1F90` is 127.0.0.1:8080 on a little-endian machine.
  static func key(_ address: SocketAddress) -> String? {
    guard let ip = address.ipAddress, let port = address.port else { return nil }
    var bytes: [UInt8]
    if ip.contains(":") {
      bytes = [UInt8](repeating: 0, count: 16)
      guard inet_pton(AF_INET6, ip, &bytes) == 1 else { return nil }
    } else {
      bytes = [UInt8](repeating: 0, count: 4)
      guard inet_pton(AF_INET, ip, &bytes) == 1 else { return nil }
    }
    var hex = ""
    for word in stride(from: 0, to: bytes.count, by: 4) {
      // The kernel prints each word as this machine reads it from memory.
      let native = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: word, as: UInt32.self) }
      hex += String(format: "%08X", native)
    }
    return hex + String(format: ":%04X", port)
  }
}
