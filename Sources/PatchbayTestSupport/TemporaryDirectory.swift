import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A fresh directory under the system temp dir, removed on deinit.
public final class TemporaryDirectory: @unchecked Sendable {
  public let url: URL
  public var path: String { url.path }

  public init(_ prefix: String = "patchbay-test") throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// Writes `text` to `name` inside the directory and returns its path.
  @discardableResult
  public func write(_ name: String, _ text: String) throws -> String {
    let file = url.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    // Not `atomically`: Foundation would leave an empty /tmp/TemporaryDirectory.* behind each time.
    try text.write(to: file, atomically: false, encoding: .utf8)
    return file.path
  }

  deinit { try? FileManager.default.removeItem(at: url) }
}

/// A TCP port that was free a moment ago (bind to 0, read the port, close).
public func freeTCPPort() -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = 0
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
  _ = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
  }
  return Int(UInt16(bigEndian: address.sin_port))
}
