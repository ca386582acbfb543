import Foundation

/// Prints whole lines to stdout and flushes each one, so a test or a demo reading the pipe
/// sees every event at once.
enum Console {
  private static let lock = NSLock()

  static func print(_ line: String) {
    lock.lock()
    defer { lock.unlock() }
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }

  static func print(_ lines: [String]) {
    for line in lines { print(line) }
  }
}
