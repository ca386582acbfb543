import Foundation
import Logging
import PatchbayValues
import Synchronization

/// What the hub remembers across restarts, under the state directory: the last value of every
/// state output, and each route's transform position (which scene ran last).
package final class HubStateStore: Sendable {
  package struct Snapshot: Codable {
    var retained: [String: RetainedValue] = [:]
    var routes: [String: RoutePosition] = [:]
  }

  package struct RetainedValue: Codable, Equatable {
    var type: ValueType
    var value: JSONValue
  }

  package struct RoutePosition: Codable, Equatable {
    var cycle = 0
    var target = 0
  }

  package let path: String
  private struct Memory {
    var snapshot = Snapshot()
    var dirty = false
    var flushScheduled = false
  }
  private let memory: Mutex<Memory>
  /// One write at a time, in the order the snapshots were taken: two writers (the delayed
  /// flush and a route's position) once interleaved on one temp file and could publish a torn
  /// or older file.
  private let writing = Mutex(())
  private let queue = DispatchQueue(label: "patchbay.state-store")
  private let logger = Logger(label: "hub")

  package init(directory: String) {
    path = directory + "/hub-state.json"
    var snapshot = Snapshot()
    if let data = FileManager.default.contents(atPath: path) {
      do {
        snapshot = try JSONDecoder().decode(Snapshot.self, from: data)
      } catch {
        logger.error("state file \(path) is unreadable (\(error)); starting with empty state")
      }
    }
    memory = Mutex(Memory(snapshot: snapshot))
  }

  package func retained() -> [String: Value] {
    memory.withLock { $0.snapshot.retained }.compactMapValues { try? Value.fromJSON($0.value, as: $0.type) }
  }

  /// The retained value of one state output (what a route condition compares with).
  package func retainedValue(for address: String) -> Value? {
    memory.withLock { $0.snapshot.retained[address] }.flatMap { try? Value.fromJSON($0.value, as: $0.type) }
  }

  package func retain(_ value: Value, for address: String) {
    let entry = RetainedValue(type: value.type, value: value.json)
    let changed = memory.withLock { memory -> Bool in
      guard memory.snapshot.retained[address] != entry else { return false }
      memory.snapshot.retained[address] = entry
      return true
    }
    if changed { scheduleFlush(delay: 0.5) }
  }

  package func position(of route: String) -> RoutePosition {
    memory.withLock { $0.snapshot.routes[route] ?? RoutePosition() }
  }

  /// Transform positions are written at once: a toggle must survive a crash right after it.
  package func setPosition(_ position: RoutePosition, of route: String) {
    memory.withLock { $0.snapshot.routes[route] = position }
    flush()
  }

  private func scheduleFlush(delay: Double) {
    let schedule = memory.withLock { memory -> Bool in
      memory.dirty = true
      defer { memory.flushScheduled = true }
      return !memory.flushScheduled
    }
    if schedule { queue.asyncAfter(deadline: .now() + delay) { self.flush() } }
  }

  /// Writes the state now (also called on shutdown).
  package func flush() {
    writing.withLock { _ in
      let snapshot = memory.withLock { memory in
        memory.flushScheduled = false
        memory.dirty = false
        return memory.snapshot
      }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
      let data = try? encoder.encode(snapshot)
      guard let data else { return }
      do {
        try AtomicFile.write(data, to: path)
      } catch {
        logger.error("cannot write state file \(path): \(error)")
      }
    }
  }
}
