import PatchbayValues
import Synchronization

/// What the hub remembers across restarts: the last value of every state output, and each
/// route's transform position (which scene ran last). It decides when to save (positions at
/// once, retained values half a second after a change, on the hub's clock); its storage keeps
/// the snapshots.
package final class HubStateStore: Sendable {
  package struct Snapshot: Codable, Equatable, Sendable {
    var retained: [String: RetainedValue] = [:]
    var routes: [String: RoutePosition] = [:]
  }

  package struct RetainedValue: Codable, Equatable, Sendable {
    var type: ValueType
    var value: JSONValue
  }

  package struct RoutePosition: Codable, Equatable, Sendable {
    var cycle = 0
    var target = 0
  }

  private struct Memory {
    var snapshot = Snapshot()
    var flushScheduled = false
  }
  private let memory: Mutex<Memory>
  /// One save at a time, in the order the snapshots were taken: two writers (the delayed
  /// flush and a route's position) once interleaved on one temp file and could publish a torn
  /// or older file.
  private let writing = Mutex(())
  private let storage: any HubStateStorage
  private let clock: any HubClock

  package init(storage: any HubStateStorage, clock: any HubClock) {
    self.storage = storage
    self.clock = clock
    memory = Mutex(Memory(snapshot: storage.load() ?? Snapshot()))
  }

  package func retained() -> [String: Value] {
    memory.withLock { $0.snapshot.retained }.compactMapValues { try? Value.fromJSON($0.value, as: $0.type) }
  }

  /// The retained value of one state output (what a route condition compares with).
  package func retainedValue(for address: String) -> Value? {
    memory.withLock { $0.snapshot.retained[address] }.flatMap { try? Value.fromJSON($0.value, as: $0.type) }
  }

  /// Whether the value differs from the one retained before.
  @discardableResult package func retain(_ value: Value, for address: String) -> Bool {
    let entry = RetainedValue(type: value.type, value: value.json)
    let changed = memory.withLock { memory -> Bool in
      guard memory.snapshot.retained[address] != entry else { return false }
      memory.snapshot.retained[address] = entry
      return true
    }
    if changed { scheduleFlush(delay: 0.5) }
    return changed
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
      defer { memory.flushScheduled = true }
      return !memory.flushScheduled
    }
    if schedule { clock.schedule(after: delay) { self.flush() } }
  }

  /// Saves the state now (also called on shutdown).
  package func flush() {
    writing.withLock { _ in
      let snapshot = memory.withLock { memory in
        memory.flushScheduled = false
        return memory.snapshot
      }
      storage.save(snapshot)
    }
  }
}
