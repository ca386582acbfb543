import PatchbayValues
import Testing

@testable import PatchbayCore

/// Which removed instances the hub retires: what the last config run had and this one has
/// not, kept across hub starts until retired, never one that is back in the config.
@Suite struct RemovedInstancesTests {
  static func spec(_ name: String, _ plugin: String = "mqtt") -> InstanceSpec {
    InstanceSpec(
      name: name, plugin: plugin, logLevel: "info", supervision: SupervisionSettings(),
      pluginConfig: .object([("host", .string("broker"))]), file: "/etc/patchbay/patchbay.toml")
  }

  @Test func removedInstancesArePendingUntilRetiredAndSurviveARestart() {
    let storage = MemoryStateStorage()
    let store = HubStateStore(storage: storage, clock: SystemClock())
    // A state file from before: no earlier instances known, nothing to retire.
    #expect(store.noteInstances([Self.spec("attic"), Self.spec("cellar")]).isEmpty)
    let pending = store.noteInstances([Self.spec("cellar")])
    #expect(pending == [Self.spec("attic")])

    // The hub restarts before attic could be retired: still pending, from the saved state.
    let again = HubStateStore(storage: storage, clock: SystemClock())
    #expect(again.pendingRetirements == [Self.spec("attic")])
    #expect(again.noteInstances([Self.spec("cellar")]) == [Self.spec("attic")])
    again.retired("attic")
    #expect(again.noteInstances([Self.spec("cellar")]).isEmpty)
  }

  @Test func anInstanceBackInTheConfigIsNotRetired() {
    let store = HubStateStore(storage: MemoryStateStorage(), clock: SystemClock())
    _ = store.noteInstances([Self.spec("attic")])
    #expect(store.noteInstances([]) == [Self.spec("attic")])
    #expect(store.noteInstances([Self.spec("attic", "hue")]).isEmpty)
    #expect(store.pendingRetirements.isEmpty)
  }
}
