/// Where the hub keeps what it remembers between runs: a file under the state directory
/// (`StateFile`, in `PatchbayHub`), or memory in the core's tests. The core decides what to
/// keep and when; the storage only reads and writes whole snapshots.
package protocol HubStateStorage: Sendable {
  /// The snapshot saved last; nil when there is none or it cannot be read (the storage says why).
  func load() -> HubStateStore.Snapshot?
  /// Replaces what is saved. Calls come one at a time, in the order the snapshots were taken.
  func save(_ snapshot: HubStateStore.Snapshot)
}
