import Logging
import Synchronization

/// A Logger whose lines a test reads back (level and message).
final class CollectedLog: Sendable {
  private let lines = Mutex<[String]>([])

  var all: [String] { lines.withLock { $0 } }

  func count(containing text: String) -> Int { all.filter { $0.contains(text) }.count }

  var logger: Logger {
    Logger(label: "mdns-test") { _ in CollectingHandler(log: self) }
  }

  fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }
}

private struct CollectingHandler: LogHandler {
  let log: CollectedLog
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .trace

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) { log.append("\(event.level): \(event.message)") }
}
