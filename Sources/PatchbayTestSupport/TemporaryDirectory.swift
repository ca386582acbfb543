import Foundation

/// A fresh directory under the system temp dir, removed on deinit.
public final class TemporaryDirectory: Sendable {
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
