import Foundation
import Logging
import PatchbayValues

/// What the hub remembers across restarts, under the state directory: the last value of every
/// state output, and each route's transform position (which scene ran last).
final class HubStateStore: @unchecked Sendable {
  struct Snapshot: Codable {
    var retained: [String: RetainedValue] = [:]
    var routes: [String: RoutePosition] = [:]
  }

  struct RetainedValue: Codable, Equatable {
    var type: ValueType
    var value: JSONValue
  }

  struct RoutePosition: Codable, Equatable {
    var cycle = 0
    var target = 0
  }

  let path: String
  private let lock = NSLock()
  /// One write at a time, in the order the snapshots were taken: two writers (the delayed
  /// flush and a route's position) once interleaved on one temp file and could publish a torn
  /// or older file.
  private let writing = NSLock()
  private var snapshot = Snapshot()
  private var dirty = false
  private var flushScheduled = false
  private let queue = DispatchQueue(label: "patchbay.state-store")
  private let logger = Logger(label: "hub")

  init(directory: String) {
    path = directory + "/hub-state.json"
    if let data = FileManager.default.contents(atPath: path) {
      do {
        snapshot = try JSONDecoder().decode(Snapshot.self, from: data)
      } catch {
        logger.error("state file \(path) is unreadable (\(error)); starting with empty state")
      }
    }
  }

  func retained() -> [String: Value] {
    lock.withLock {
      snapshot.retained.compactMapValues { try? Value.fromJSON($0.value, as: $0.type) }
    }
  }

  /// The retained value of one state output (what a route condition compares with).
  func retainedValue(for address: String) -> Value? {
    lock.withLock { snapshot.retained[address] }.flatMap { try? Value.fromJSON($0.value, as: $0.type) }
  }

  func retain(_ value: Value, for address: String) {
    let entry = RetainedValue(type: value.type, value: value.json)
    let changed = lock.withLock { () -> Bool in
      guard snapshot.retained[address] != entry else { return false }
      snapshot.retained[address] = entry
      return true
    }
    if changed { scheduleFlush(delay: 0.5) }
  }

  func position(of route: String) -> RoutePosition { lock.withLock { snapshot.routes[route] ?? RoutePosition() } }

  /// Transform positions are written at once: a toggle must survive a crash right after it.
  func setPosition(_ position: RoutePosition, of route: String) {
    lock.withLock { snapshot.routes[route] = position }
    flush()
  }

  private func scheduleFlush(delay: Double) {
    let schedule = lock.withLock { () -> Bool in
      dirty = true
      defer { flushScheduled = true }
      return !flushScheduled
    }
    if schedule { queue.asyncAfter(deadline: .now() + delay) { self.flush() } }
  }

  /// Writes the state now (also called on shutdown).
  func flush() {
    writing.withLock {
      let data: Data? = lock.withLock {
        flushScheduled = false
        dirty = false
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try? encoder.encode(snapshot)
      }
      guard let data else { return }
      do {
        try AtomicFile.write(data, to: path)
      } catch {
        logger.error("cannot write state file \(path): \(error)")
      }
    }
  }
}
