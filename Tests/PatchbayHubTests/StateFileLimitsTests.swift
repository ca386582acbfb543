import Foundation
import PatchbayValues
import Testing

@testable import PatchbayCore
@testable import PatchbayHub

/// The state file does not grow forever: values of ports no config names are forgotten after a
/// week, a file over the size limit is set aside (and never written), and temp files of writes
/// a `kill -9` interrupted are removed when the hub starts.
@Suite struct StateFileLimitsTests {
  func makeDirectory() throws -> String {
    let directory = NSTemporaryDirectory() + "patchbay-limits-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory
  }

  @Test func unnamedValuesAreForgottenOnlyAfterTheGracePeriod() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = HubStateStore(storage: StateFile(directory: directory), clock: SystemClock())
    store.retain(.bool(true), for: "lamp.on")
    store.retain(.integer(3), for: "gone.count")
    store.retain(.integer(4), for: "back.count")
    let day = 24 * 3600.0
    let start = 1_000_000.0
    let named: Set = ["lamp.on"]
    #expect(store.prune(keeping: { named.contains($0) }, now: start) == 0)
    #expect(store.prune(keeping: { named.contains($0) }, now: start + 6 * day) == 0)
    // Named again in between: its week starts over.
    #expect(store.prune(keeping: { named.contains($0) || $0 == "back.count" }, now: start + 6.5 * day) == 0)
    #expect(store.prune(keeping: { named.contains($0) }, now: start + 7.5 * day) == 1)
    #expect(Set(store.retained().keys) == ["lamp.on", "back.count"])
    // The marks are saved with the values: a restarted hub keeps counting (back.count's week
    // started again at 7.5 days).
    let reloaded = HubStateStore(storage: StateFile(directory: directory), clock: SystemClock())
    #expect(reloaded.prune(keeping: { named.contains($0) }, now: start + 14 * day) == 0)
    #expect(reloaded.prune(keeping: { named.contains($0) }, now: start + 15 * day) == 1)
    #expect(Set(reloaded.retained().keys) == ["lamp.on"])
  }

  @Test func anOversizedFileIsSetAsideAndStartsEmpty() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let big = StateFile(directory: directory, sizeLimit: 1 << 20)
    var snapshot = HubStateStore.Snapshot()
    for index in 0..<40_000 { snapshot.retained["old\(index).value"] = .init(type: .integer, value: .integer(1)) }
    try JSONEncoder().encode(snapshot).write(to: URL(fileURLWithPath: big.path))
    #expect(big.load() == nil)
    #expect(FileManager.default.fileExists(atPath: big.path + ".oversized"))
    #expect(!FileManager.default.fileExists(atPath: big.path))
    // Nor is a snapshot over the limit written.
    big.save(snapshot)
    #expect(!FileManager.default.fileExists(atPath: big.path))
  }

  @Test func tempFilesOfInterruptedWritesAreRemovedAtLoad() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    for index in 0..<11 {
      try "{".write(toFile: "\(directory)/hub-state.json.tmp-\(index)-1", atomically: false, encoding: .utf8)
    }
    try "keep".write(toFile: "\(directory)/other.tmp-1-1", atomically: false, encoding: .utf8)
    let file = StateFile(directory: directory)
    _ = file.load()
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(names == ["other.tmp-1-1"])
  }
}
