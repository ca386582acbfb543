import ChildProcesses
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A mosquitto broker on loopback, the event backbone many home hubs use, with its own config.
final class MosquittoBroker {
  let port: Int
  let process: ChildProcess
  var pid: Int32 { process.pid }

  static let executable = "/usr/sbin/mosquitto"
  static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

  /// `wrapper` runs the broker under another program (valgrind).
  init(directory: String, wrapper: [String] = []) throws {
    port = Self.freePort()
    let config = directory + "/mosquitto.conf"
    // Under valgrind the broker keeps our user: started as root it would switch to the
    // mosquitto user, and callgrind_control (as root) could no longer reach it. And it
    // publishes no $SYS statistics every 10 s, which would land in some counts and not others.
    let user =
      wrapper.isEmpty
      ? "" : (getpwuid(geteuid()).map { "user \(String(cString: $0.pointee.pw_name))\n" } ?? "") + "sys_interval 0\n"
    try "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n\(user)"
      .write(toFile: config, atomically: false, encoding: .utf8)
    let command = wrapper + [Self.executable, "-c", config]
    process = try ChildProcess(
      command[0], Array(command.dropFirst()), standardError: .file(directory + "/mosquitto.log"))
    try waitFor("mosquitto to listen on port \(port)", within: wrapper.isEmpty ? 30 : 120, interval: 10_000) {
      Self.accepts(port)
    }
  }

  func stop() { _ = try? process.terminate(within: 10) }

  /// A loopback TCP port the kernel just handed out (and took back).
  static func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        _ = bind(fd, $0, length)
        _ = getsockname(fd, $0, &length)
      }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  private static func accepts(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = loopback(port: port)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return address
  }
}
