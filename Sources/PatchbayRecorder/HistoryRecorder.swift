import DequeModule
import Foundation
import PatchbayValues
import Synchronization

/// Writes values into the history off the caller's path: `record` only appends to a bounded
/// queue (never waits for the disk); one thread of its own writes batches in transactions and
/// applies retention, downsampling and the size cap as its clock moves. A value that finds the
/// queue full, or whose batch the disk refuses (full, failing), is dropped and counted.
public final class HistoryRecorder: Sendable {
  public struct Counters: Sendable, Equatable {
    public var written = 0
    public var dropped = 0
  }

  private struct State {
    var queue: Deque<HistorySample> = []
    var counters = Counters()
    var droppedByPort: [String: Int] = [:]
    /// The writer is busy with a batch (or about to be woken): no further wake-up needed.
    var writerAwake = false
    var stopped = false
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
  }

  public let path: String
  public let capacity: Int
  private let policy: HistoryPolicy
  private let clock: any HistoryClock
  private let report: @Sendable (String) -> Void
  private let state = Mutex(State())
  private let wake = DispatchSemaphore(value: 0)
  /// The open database (owned by the writer thread; readers borrow it). Nil until it opens.
  private let store = Mutex<HistoryStore?>(nil)

  /// `report` receives the log lines (a failing disk, its recovery).
  public init(
    path: String, policy: HistoryPolicy, clock: any HistoryClock = SystemHistoryClock(), capacity: Int = 10_000,
    report: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    self.path = path
    self.policy = policy
    self.clock = clock
    self.capacity = capacity
    self.report = report
  }

  /// Starts the writer thread.
  public func start() {
    let thread = Thread { [self] in writeUntilStopped() }
    thread.name = "patchbay-history"
    thread.start()
  }

  /// Ends the writer thread once the queue is written.
  public func stop() {
    state.withLock { $0.stopped = true }
    wake.signal()
  }

  /// Queues one value (time: now, by the recorder's clock). Never blocks on the disk.
  public func record(port: String, value: JSONValue) {
    let sample = HistorySample(port: port, time: clock.now(), value: value)
    let signal = state.withLock { state -> Bool in
      guard state.queue.count < capacity, !state.stopped else {
        state.counters.dropped += 1
        state.droppedByPort[port, default: 0] += 1
        return false
      }
      state.queue.append(sample)
      defer { state.writerAwake = true }
      return !state.writerAwake
    }
    if signal { wake.signal() }
  }

  public var counters: Counters { state.withLock { $0.counters } }

  public func dropped(port: String) -> Int { state.withLock { $0.droppedByPort[port] ?? 0 } }

  /// Bytes of the database on disk (0 before it exists).
  public var databaseBytes: Int {
    if let open = store.withLock({ $0 }) { return open.bytes }
    return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
  }

  /// The database for reading, once the writer has opened it.
  public var reader: HistoryStore? { store.withLock { $0 } }

  /// Returns once everything queued so far is written or dropped.
  public func idle() async {
    await withCheckedContinuation { continuation in
      let now = state.withLock { state -> Bool in
        if state.queue.isEmpty && !state.writerAwake { return true }
        state.idleWaiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }

  // MARK: The writer thread

  private func writeUntilStopped() {
    var lastMaintenance = -Double.infinity
    var failing = false
    while true {
      wake.wait()
      while let batch = nextBatch() {
        failing = write(batch, failing: failing)
        let now = clock.now()
        if now - lastMaintenance >= policy.maintenanceInterval, let open = store.withLock({ $0 }) {
          lastMaintenance = now
          do {
            try open.maintain(now: now, policy: policy)
          } catch {
            if !failing { report("history: retention and downsampling failed: \(error)") }
          }
        }
      }
      if state.withLock({ $0.stopped }) { return }
    }
  }

  /// Up to 1000 queued values; nil when the queue is empty (then the writer goes to sleep and
  /// whoever waits for it to be idle is told).
  private func nextBatch() -> [HistorySample]? {
    let (batch, waiters) = state.withLock { state -> ([HistorySample], [CheckedContinuation<Void, Never>]) in
      let batch = Array(state.queue.prefix(1000))
      state.queue.removeFirst(batch.count)
      guard batch.isEmpty else { return (batch, []) }
      state.writerAwake = false
      defer { state.idleWaiters = [] }
      return (batch, state.idleWaiters)
    }
    waiters.forEach { $0.resume() }
    return batch.isEmpty ? nil : batch
  }

  /// Writes one batch, or drops and counts it; whether writing now fails.
  private func write(_ batch: [HistorySample], failing: Bool) -> Bool {
    do {
      try openStore().write(batch)
      state.withLock { $0.counters.written += batch.count }
      if failing { report("history: writing works again (\(path))") }
      return false
    } catch {
      state.withLock { state in
        state.counters.dropped += batch.count
        for sample in batch { state.droppedByPort[sample.port, default: 0] += 1 }
      }
      if !failing {
        report(
          "history: cannot write \(path): \(error); values are dropped from the history (and counted)"
            + " until it works again; routes are not affected")
      }
      return true
    }
  }

  private func openStore() throws -> HistoryStore {
    if let open = store.withLock({ $0 }) { return open }
    let directory = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let open = try HistoryStore(writingAt: path)
    store.withLock { $0 = open }
    return open
  }
}
