import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 41's attacks that went through the hub's own process: numbers a plugin's host sends,
/// the plugin's standard output and error, and the children it leaves behind. Each costs only
/// the plugin's own process; the healthy instance next to it gets every event throughout.
@Suite(.serialized) struct HostileProcessTests {
  let containment = ContainmentTests()

  /// Attack 1: well-formed frames whose counters are UINT64_MAX, from one process after
  /// another. The hub used to trap summing them (at `status`, a /metrics scrape, shutdown);
  /// now the sums saturate.
  @Test func countersAtTheirMaximumDoNotTrapTheHub() throws {
    let harness = try containment.startHub(mode: "overflow_counters")
    try eventually("restarted at least twice; log:\n\(harness.log)") {
      (try harness.instanceStatus("bad")?["restarts"] as? Int ?? 0) >= 2
    }
    // Each of these sums the counters of every process so far.
    let status = try harness.instanceStatus("bad")
    #expect(status?["refusals"] as? Int == Int.max, "\(status ?? [:])")
    #expect(status?["publishBusy"] as? Int == Int.max)
    #expect(try harness.cli("status").status == 0)
    #expect(try harness.cli("status", "--sandbox").status == 0)
    try containment.expectHealthyGetsEverything(harness, from: 1, count: 5)
    // A shutdown that sums them once more, and ends cleanly.
    #expect(try harness.stop() == 0, "\(harness.log)")
    #expect(!harness.log.contains("Fatal error"), "\(harness.log)")
  }

  /// Attack 5: the plugin's standard output and error are pipes the hub reads: each line is the
  /// instance's, escaped, and within a budget (200 lines per 10 s, then a summary).
  @Test func aPluginCannotForgeTheHubsLog() throws {
    let harness = try containment.startHub(mode: "forge_log")
    let hub = harness.process!
    try hub.waitForLine(containing: "[bad] stdout: 2026-12-06T00:00:00Z critical [hub] FORGED by a plugin", within: 60)
    try hub.waitForLine(containing: #"[bad] stderr: \x1b[2J\x1b[31mred\x1b[0m FORGED on stderr"#, within: 60)
    try hub.waitForLine(containing: "[bad] stderr: 2026-12-06T00:00:01Z info [good] FORGED too", within: 60)
    try containment.expectHealthyGetsEverything(harness, from: 1, count: 3)
    let lines = harness.log.split(separator: "\n")
    #expect(!lines.contains { $0.hasPrefix("2026-12-06T00:00:0") }, "a forged line stands alone:\n\(harness.log)")
    #expect(!harness.log.unicodeScalars.contains("\u{1b}"), "a raw escape reached the hub's output")
    // 1,000 flood lines: 200 pass (with the two above), the rest are not written line by line.
    let flood = lines.filter { $0.contains("[bad] stderr: flood ") }.count
    #expect(flood < 200, "\(flood) flood lines passed")
    try harness.stop()
    #expect(harness.log.contains("more lines suppressed"), "\(harness.log)")
  }

  /// Attack 4: 1,000 children that end at once and are never waited for, SIGTERM ignored,
  /// start() hung: after the SIGKILL they are the hub's (a subreaper), which reaps them at once,
  /// round after round, instead of keeping them until it exits.
  @Test func theZombiesAPluginLeavesAreReapedAtOnce() throws {
    let harness = try containment.startHub(mode: "zombies")
    let hub = harness.process!
    try hub.waitForLine(containing: "[bad] reaped", within: 120)
    try eventually("killed and restarted twice; log:\n\(harness.log)", within: 180) {
      (try harness.instanceStatus("bad")?["restarts"] as? Int ?? 0) >= 2
    }
    // Whatever the round, the hub holds no zombie for long (before: 1,000 more each round).
    try eventually("no zombie children of the hub") { Self.zombieChildren(of: hub.pid) == 0 }
    // The hub logs each round's reaping before it counts the restart, but this test reads that
    // log through a pipe: on a loaded machine the line may still be on its way.
    try eventually("a reaping logged for each of two rounds; log:\n\(harness.log)", within: 60) {
      harness.log.split(separator: "\n").filter { $0.contains("[bad] reaped") }.count >= 2
    }
    try containment.expectHealthyGetsEverything(harness, from: 1, count: 5)
    try harness.stop()
  }

  /// Zombie children of `pid` now.
  static func zombieChildren(of pid: Int32) -> Int {
    HubUnderTest.children(of: pid).filter { child in
      let stat = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(child)/stat"))) ?? Data()
      guard let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.count else { return false }
      return stat[close + 2] == UInt8(ascii: "Z")
    }.count
  }
}
