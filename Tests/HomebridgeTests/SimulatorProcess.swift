import Foundation
import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay-sim homebridge` started by a test, with its control socket.
final class SimulatorProcess {
  let port: Int
  let controlPath: String
  let child: ChildProcess

  init(port: Int, directory: TemporaryDirectory, arguments: [String] = [], name: String = "simulator") throws {
    self.port = port
    controlPath = directory.url.appendingPathComponent("\(name).sock").path
    child = try ChildProcess(
      BuildProducts.executable("patchbay-sim"),
      ["homebridge", "--port", String(port), "--control", controlPath] + arguments)
    try child.waitForLine(containing: "listening on")
  }

  var lines: [String] { child.lines }

  func waitForLine(containing text: String) throws { try child.waitForLine(containing: text) }

  /// Lines containing `text` printed so far.
  func count(_ text: String) -> Int { lines.filter { $0.contains(text) }.count }

  /// Sends control commands (one per line) and returns the reply.
  @discardableResult
  func control(_ commands: String...) throws -> String {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { bytes in
      let path = Array(controlPath.utf8.prefix(bytes.count - 1))
      bytes.copyBytes(from: path)
      bytes[path.count] = 0
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else { throw ControlError(description: "cannot connect to \(controlPath)") }
    let text = commands.map { $0 + "\n" }.joined()
    _ = text.withCString { write(fd, $0, strlen($0)) }
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var reply = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    // Each command's answer ends with an empty line.
    while String(decoding: reply, as: UTF8.self).components(separatedBy: "\n\n").count <= commands.count {
      let count = read(fd, &buffer, buffer.count)
      guard count > 0 else { break }
      reply.append(contentsOf: buffer[0..<count])
    }
    return String(decoding: reply, as: UTF8.self)
  }

  struct ControlError: Error, CustomStringConvertible {
    var description: String
  }

  func stop() throws { try child.terminate() }
}
