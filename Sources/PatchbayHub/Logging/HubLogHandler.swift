import Foundation
import Logging
import PatchbayCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One line per message on standard error, naming the instance (the logger's label):
/// `2026-11-22T20:41:07Z warning [bedside] restarting in 0.52 s`. Under systemd the journal
/// stores it with the unit. Every part that may come from a plugin or a peer (the message, the
/// metadata, the label) is escaped here, in one place: one message is always one line.
public struct HubLogHandler: LogHandler {
  public var logLevel: Logger.Level = .info
  public var metadata: Logger.Metadata = [:]
  let label: String
  static let defaultLevel = Mutex<Logger.Level>(.info)
  /// One line at a time on standard error, never two interleaved.
  static let writing = Mutex(())

  public init(label: String) {
    self.label = label
    logLevel = Self.defaultLevel.withLock { $0 }
  }

  /// Installs the handler for every logger of this process.
  public static func bootstrap(level: Logger.Level) {
    defaultLevel.withLock { $0 = level }
    LoggingSystem.bootstrap { HubLogHandler(label: $0) }
  }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  public func log(event: LogEvent) {
    let time = Self.timestamp()
    let label = LogText.escaped(label)
    var message = LogText.escaped("\(event.message)")
    let merged = metadata.merging(event.metadata ?? [:]) { $1 }
    if !merged.isEmpty {
      message +=
        " "
        + merged.sorted { $0.key < $1.key }.map { LogText.escaped("\($0.key)=\($0.value)") }.joined(separator: " ")
    }
    // Kept for the control socket's `log` (the web dashboard), without the timestamp and label.
    RecentLog.shared.append(LogRecord(time: time, level: event.level.rawValue, label: label, message: message))
    let line = "\(time) \(event.level) [\(label)] \(message)\n"
    Self.writing.withLock { _ in _ = line.withCString { write(2, $0, strlen($0)) } }
  }

  static func timestamp() -> String {
    var now = time(nil)
    var parts = tm()
    gmtime_r(&now, &parts)
    return String(
      format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour,
      parts.tm_min, parts.tm_sec)
  }
}
