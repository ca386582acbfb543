#if canImport(Glibc)
  import Glibc
#endif

/// A Twist's dial positions (13 modes, 1/49152 turn) in the instance's state directory,
/// `NAME.twist`, so that a hub restart resumes where the dial was: the Twist keeps none itself.
/// One line of 13 comma-separated numbers, replaced atomically like the pairing file.
public struct TwistPositionsFile: Sendable {
  public let path: String

  public init(stateDirectory: String, button name: String) {
    path = stateDirectory + "/" + name + ".twist"
  }

  /// The positions, or nil when there are none (or the file is damaged: the dial then starts at 0).
  public func load() -> [Int32]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var chunk = [UInt8](repeating: 0, count: 512)
    let count = read(fd, &chunk, chunk.count)
    guard count > 0 else { return nil }
    let text = String(decoding: chunk[0..<count], as: UTF8.self).split(separator: "\n").first ?? ""
    let values = text.split(separator: ",").compactMap { Int32($0) }
    guard values.count == 13, values.allSatisfy({ (0...49152).contains($0) }) else { return nil }
    return values
  }

  /// Writes the positions; false when the file cannot be written.
  @discardableResult
  public func save(_ positions: [Int32]) -> Bool {
    let bytes = Array((positions.map(String.init).joined(separator: ",") + "\n").utf8)
    let temporary = path + ".new"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return false }
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    guard written == bytes.count, rename(temporary, path) == 0 else {
      unlink(temporary)
      return false
    }
    return true
  }
}
