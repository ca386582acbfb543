@testable import PatchbayCore

/// The hub's remembered state kept in memory: the core's tests see each save, and a second hub
/// on the same storage starts from what the first one saved.
final class MemoryStateStorage: HubStateStorage {
  private let saved = Guarded([HubStateStore.Snapshot]())

  func load() -> HubStateStore.Snapshot? { saved.withLock { $0.last } }
  func save(_ snapshot: HubStateStore.Snapshot) { saved.change { $0.append(snapshot) } }

  /// Every snapshot saved so far, oldest first.
  var saves: [HubStateStore.Snapshot] { saved.withLock { $0 } }
}
