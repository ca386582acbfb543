import Foundation
import Synchronization

/// Prints whole lines to stdout and flushes each one, so a test or a demo reading the pipe
/// sees every event at once.
enum Console {
  private static let lock = Mutex(())

  static func print(_ line: String) {
    lock.withLock { _ in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
  }

  static func print(_ lines: [String]) {
    for line in lines { print(line) }
  }
}
