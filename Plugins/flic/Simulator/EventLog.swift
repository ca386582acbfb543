import Foundation
import Synchronization

/// One line per thing that happened, flushed at once so tests and the demo can follow the
/// simulator through a pipe.
public final class EventLog: Sendable {
  private let sink: @Sendable (String) -> Void
  private let recent = Mutex<[String]>([])

  /// Writes to `sink`; the default is standard output.
  public init(sink: @escaping @Sendable (String) -> Void = EventLog.standardOutput) {
    self.sink = sink
  }

  public func line(_ text: String) {
    recent.withLock { recent in
      recent.append(text)
      if recent.count > 10_000 { recent.removeFirst(5_000) }
    }
    sink(text)
  }

  /// The most recent lines (bounded), for in-process tests.
  public var lines: [String] { recent.withLock { $0 } }

  public static let standardOutput: @Sendable (String) -> Void = { text in
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
  }
}
