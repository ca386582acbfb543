import Foundation
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
    /// Retained addresses that the config stopped naming, and since when (seconds since 1970);
    /// optional so that files written before it still load.
    var unconfigured: [String: Double]? = nil
    /// The instances of the config last run, and those removed from it whose plugin has not
    /// yet undone what they left outside the hub (`Hub.retireRemovedInstances`); optional so
    /// that files written before them still load.
    var instances: [InstanceSpec]? = nil
    var retiring: [InstanceSpec]? = nil
  }

  /// How long a retained value outlives the last config that named its port (a port renamed
  /// for an evening, or an instance commented out, gets its value back within a week).
  package static let unconfiguredGrace: Double = 7 * 24 * 3600

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

  /// Forgets retained values for ports that no config has named for `unconfiguredGrace`
  /// (`isNamed` says whether the running config names an address), and starts the grace period
  /// of those it just stopped naming. Returns how many values it dropped.
  @discardableResult
  package func prune(keeping isNamed: (String) -> Bool, now: Double = Date().timeIntervalSince1970) -> Int {
    let (dropped, changed) = memory.withLock { memory -> (Int, Bool) in
      var since = memory.snapshot.unconfigured ?? [:]
      var dropped = 0
      var changed = false
      for address in memory.snapshot.retained.keys {
        if isNamed(address) {
          if since.removeValue(forKey: address) != nil { changed = true }
        } else if let first = since[address] {
          guard now - first >= Self.unconfiguredGrace else { continue }
          memory.snapshot.retained.removeValue(forKey: address)
          since.removeValue(forKey: address)
          dropped += 1
        } else {
          since[address] = now
          changed = true
        }
      }
      // Marks for values that are gone by now (a route position, a value overwritten) go too.
      let stale = since.keys.filter { memory.snapshot.retained[$0] == nil }
      for address in stale { since.removeValue(forKey: address) }
      memory.snapshot.unconfigured = since.isEmpty ? nil : since
      return (dropped, changed || dropped > 0 || !stale.isEmpty)
    }
    if changed { flush() }
    return dropped
  }

  /// Remembers `specs` as the config now running and returns the instances to retire: those
  /// the config last run had and this one has not, with those still waiting from before. An
  /// instance that is back in the config is not retired. (A state file from before this was
  /// kept knows no earlier instances: nothing to retire.)
  package func noteInstances(_ specs: [InstanceSpec]) -> [InstanceSpec] {
    let pending = memory.withLock { memory -> [InstanceSpec] in
      let names = Set(specs.map(\.name))
      var pending = memory.snapshot.retiring ?? []
      for spec in memory.snapshot.instances ?? [] where !pending.contains(where: { $0.name == spec.name }) {
        if !names.contains(spec.name) { pending.append(spec) }
      }
      pending.removeAll { names.contains($0.name) }
      memory.snapshot.instances = specs
      memory.snapshot.retiring = pending.isEmpty ? nil : pending
      return pending
    }
    flush()
    return pending
  }

  /// The removed instances still to retire.
  package var pendingRetirements: [InstanceSpec] { memory.withLock { $0.snapshot.retiring ?? [] } }

  /// The removed instance `name` is retired (or had nothing to undo): forgotten.
  package func retired(_ name: String) {
    memory.withLock { memory in
      memory.snapshot.retiring?.removeAll { $0.name == name }
      if memory.snapshot.retiring?.isEmpty == true { memory.snapshot.retiring = nil }
    }
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
