import PatchbayPluginKit
import Synchronization

/// Warnings about what arrives from the broker (malformed payloads, unknown levels), at most
/// one line per topic and interval: a device that floods garbage must not flood the journal.
/// The line after a quiet interval says how many were left out.
final class RateLimitedLog: Sendable {
  private struct Entry {
    var lastLogged: UInt64
    var suppressed: Int
  }

  private let entries = Mutex<[String: Entry]>([:])
  private let intervalNanoseconds: UInt64
  private let clock: @Sendable () -> UInt64
  private let write: @Sendable (LogLevel, String) -> Void
  /// Beyond this many topics the table starts over (a flood of distinct topics stays bounded).
  private let maximumKeys = 1024

  init(
    intervalSeconds: Double = 10, clock: @escaping @Sendable () -> UInt64,
    write: @escaping @Sendable (LogLevel, String) -> Void
  ) {
    intervalNanoseconds = UInt64(intervalSeconds * 1e9)
    self.clock = clock
    self.write = write
  }

  /// Logs `message` about `topic` unless a line about it was logged within the interval.
  func warning(topic: String, _ message: String) {
    let now = clock()
    let suppressed: Int? = entries.withLock { entries in
      if entries.count >= maximumKeys && entries[topic] == nil { entries.removeAll() }
      if var entry = entries[topic], now &- entry.lastLogged < intervalNanoseconds {
        entry.suppressed += 1
        entries[topic] = entry
        return nil
      }
      let before = entries[topic]?.suppressed ?? 0
      entries[topic] = Entry(lastLogged: now, suppressed: 0)
      return before
    }
    guard let suppressed else { return }
    let more = suppressed > 0 ? " (\(suppressed) more like it not logged)" : ""
    write(.warning, "ignored a message on '\(topic)': \(message)\(more)")
  }
}
