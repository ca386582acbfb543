import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A fresh directory under the system temp dir, removed on deinit.
public final class TemporaryDirectory: Sendable {
  public let url: URL
  public var path: String { url.path }

  public init(_ prefix: String = "patchbay-test") throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
    // Plugins are refused from folders others may write to (issue 29.11): whatever the umask
    // the tests were started with, what they create here is writable by its owner only.
    umask(0o022)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    chmod(url.path, 0o755)
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
