import Foundation
import PatchbayTestSupport
import Testing

/// A hub given a large stale state file: values of ports no config has named for a week are
/// forgotten at start, a file over the size limit is set aside with one clear line, and the
/// temp files that `kill -9` left are gone; the hub answers `status` throughout.
@Suite(.serialized) struct StateFileGrowthTests {
  func makeHub() throws -> HubUnderTest {
    let harness = try HubUnderTest.withCounter("patchbay-growth")
    try FileManager.default.createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
    return harness
  }

  /// A state file (compact JSON; value types by their ABI number: 2 bool, 3 integer) with `stale` values of a removed
  /// instance, unnamed since `unnamedDaysAgo` days, and `recent` values of another removed one.
  func writeState(_ harness: HubUnderTest, stale: Int, unnamedDaysAgo: Double, recent: Int = 0) throws {
    var retained: [String: Any] = ["counter.count": ["type": 3, "value": 41]]
    var unconfigured: [String: Any] = [:]
    let since = Date().timeIntervalSince1970 - unnamedDaysAgo * 24 * 3600
    for index in 0..<stale {
      retained["gone.port\(index)"] = ["type": 3, "value": index]
      unconfigured["gone.port\(index)"] = since
    }
    for index in 0..<recent { retained["renamed.port\(index)"] = ["type": 2, "value": true] }
    let snapshot: [String: Any] = ["retained": retained, "routes": [:], "unconfigured": unconfigured]
    try JSONSerialization.data(withJSONObject: snapshot).write(
      to: URL(fileURLWithPath: harness.stateDirectory + "/hub-state.json"))
  }

  func savedState(_ harness: HubUnderTest) throws -> [String: Any] {
    let data = try #require(FileManager.default.contents(atPath: harness.stateDirectory + "/hub-state.json"))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  @Test func valuesUnnamedForAWeekAreForgottenAtStart() throws {
    let harness = try makeHub()
    try writeState(harness, stale: 100_000, unnamedDaysAgo: 8, recent: 3)
    for index in 0..<11 {
      _ = try harness.directory.write("state/hub-state.json.tmp-\(9000 + index)-1", "{\"retained\":")
    }
    try harness.start()
    defer { _ = try? harness.stop() }
    try harness.waitUntilRunning("counter")
    try harness.process!.waitForLine(containing: "forgot 100000 retained values", within: 60)
    let saved = try savedState(harness)
    let retained = try #require(saved["retained"] as? [String: Any])
    #expect(retained.keys.filter { $0.hasPrefix("gone.") }.isEmpty)
    #expect(retained["counter.count"] != nil)
    // Unnamed for less than a week: kept, and its week has started.
    #expect(retained.keys.filter { $0.hasPrefix("renamed.") }.count == 3)
    let marks = try #require(saved["unconfigured"] as? [String: Any])
    #expect(Set(marks.keys) == ["renamed.port0", "renamed.port1", "renamed.port2"])
    // The temp files planted above are gone. The running hub's own (FILE.tmp-ITS_PID-N) may be
    // there for a moment: it saves while this looks (a stress run caught hub-state.json.tmp-3031-2).
    let names = try FileManager.default.contentsOfDirectory(atPath: harness.stateDirectory)
    let ownTemp = "hub-state.json.tmp-\(harness.process?.pid ?? -1)-"
    #expect(!names.contains { $0.contains(".tmp-") && !$0.hasPrefix(ownTemp) }, "\(names)")
  }

  @Test func aFileOverTheLimitIsSetAsideWithOneLine() throws {
    let harness = try makeHub()
    // About 20 MB: over the 16 MB limit.
    try writeState(harness, stale: 330_000, unnamedDaysAgo: 1)
    try harness.start()
    defer { _ = try? harness.stop() }
    try harness.waitUntilRunning("counter")
    let line = try harness.process!.waitForLine(containing: "over the limit of 16.0 MB", within: 60)
    #expect(line.text.contains("moved to \(harness.stateDirectory)/hub-state.json.oversized"), "\(line.text)")
    #expect(FileManager.default.fileExists(atPath: harness.stateDirectory + "/hub-state.json.oversized"))
    #expect((try? harness.status()) != nil)
  }
}
