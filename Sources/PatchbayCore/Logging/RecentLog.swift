import DequeModule
import Synchronization

/// The last lines the hub logged, bounded (the oldest go first), for the control socket's `log`
/// command and so the web dashboard. Appending is a short critical section and never blocks on
/// a reader.
public final class RecentLog: Sendable {
  /// The hub process's log, fed by `HubLogHandler`.
  public static let shared = RecentLog(capacity: 500)

  public let capacity: Int
  private let records: Mutex<Deque<LogRecord>>

  public init(capacity: Int) {
    self.capacity = capacity
    records = Mutex(Deque(minimumCapacity: capacity))
  }

  public func append(_ record: LogRecord) {
    records.withLock { lines in
      if lines.count >= capacity { lines.removeFirst() }
      lines.append(record)
    }
  }

  /// The newest `limit` records (oldest first) of `instance` (a logger label; nil: all) at
  /// `level` or more severe (nil: all).
  public func last(_ limit: Int, instance: String? = nil, level: String? = nil) -> [LogRecord] {
    let all = records.withLock { Array($0) }
    let matching = all.filter { record in
      (instance.map { $0.isEmpty || record.label == $0 } ?? true) && (level.map { record.isAtLeast($0) } ?? true)
    }
    return Array(matching.suffix(max(0, limit)))
  }
}
