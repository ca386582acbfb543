import Foundation
import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay-sim flicd` as a real process, driven through its control socket.
final class SimulatorProcess {
  let port: Int
  let controlPath: String
  let process: ChildProcess

  init(port: Int, controlPath: String, buttons: [String]) throws {
    self.port = port
    self.controlPath = controlPath
    process = try ChildProcess(
      BuildProducts.executable("patchbay-sim"),
      ["flicd", "--port", "\(port)", "--control", controlPath, "--no-stdin"] + buttons.flatMap { ["--button", $0] })
    try process.waitForLine(containing: "control socket", within: 60)
  }

  /// Sends one control line and returns the simulator's one-line answer.
  @discardableResult
  func control(_ line: String) throws -> String {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      let bytes = Array(controlPath.utf8.prefix(raw.count - 1))
      raw.copyBytes(from: bytes + [0])
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else { throw SimulatorControlError(description: "cannot connect to \(controlPath)") }
    let request = Array((line + "\n").utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var answer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 512)
    while !answer.contains(0x0A) {
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { break }
      answer += chunk.prefix(count)
    }
    let text = String(decoding: answer, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    if text.hasPrefix("error") { throw SimulatorControlError(description: "\(line): \(text)") }
    return text
  }
}

struct SimulatorControlError: Error, CustomStringConvertible {
  var description: String
}
