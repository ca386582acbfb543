import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A hostile C plugin next to a healthy one: whatever it does costs only its own process, and
/// the healthy instance gets every event, in order, throughout.
@Suite(.serialized) struct ContainmentTests {
  /// A hub with one hostile instance in `mode`, and a healthy recorder next to it.
  func startHub(mode: String, marker: String = "", extra: KeyValuePairs<String, HubTOML.Value> = [:]) throws
    -> HubUnderTest
  {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "hostile", source: HostilePlugin.source, defines: ["-lpthread"])
    try harness.linkBuiltPlugins(["example-swift"])
    try harness.writeConfig(
      HubTOML()
        .instance(
          "bad", plugin: "hostile",
          [
            "mode": .string(mode), "marker": .string(marker), "backoff_initial_ms": 100, "heartbeat_interval_ms": 200,
            "hang_timeout_ms": 2000,
          ]
        )
        .keys(extra)
        .probe("good", record: harness.path + "/good.jsonl", ports: [.event("seen", "integer")]))
    try harness.start()
    return harness
  }

  /// Sends 1...count into the healthy instance and waits until it recorded all, in order.
  func expectHealthyGetsEverything(_ harness: HubUnderTest, from first: Int, count: Int) throws {
    for number in first..<(first + count) {
      #expect(try harness.cli("send", "good.seen", String(number)).status == 0)
    }
    let expected = (1..<(first + count)).map { #"{"port":"seen","value":\#($0)}"# }
    try eventually("the healthy instance recorded 1...\(first + count - 1)") {
      harness.lines("good.jsonl") == expected
    }
  }

  @Test func aPluginThatClosesItsSocketIsNoticedAndRestarted() throws {
    let harness = try startHub(mode: "close_fds")
    let hub = harness.process!
    // Restarted within the hang deadline, and the log says what happened.
    try hub.waitForLine(containing: "[bad] plugin process", within: 30)
    try hub.waitForLine(containing: "[bad] restarting in", within: 30)
    try expectHealthyGetsEverything(harness, from: 1, count: 10)
    try eventually("restarted at least twice") { (try harness.instanceStatus("bad")?["restarts"] as? Int ?? 0) >= 2 }
    try expectHealthyGetsEverything(harness, from: 11, count: 10)
    try harness.stop()
  }

  @Test func aCreateThatNeverReturnsIsAHang() throws {
    let harness = try startHub(mode: "hang_create")
    let hub = harness.process!
    try hub.waitForLine(containing: "while starting (create() or start() has not returned)", within: 60)
    try hub.waitForLine(containing: "[bad] restarting in", within: 30)
    try expectHealthyGetsEverything(harness, from: 1, count: 10)
    try harness.stop()
  }

  /// Processes (not zombies) whose environment holds the test's marker.
  static func marked(_ marker: String) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { pid in
      guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
      let variables = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
      return variables.contains("HOSTILE_MARKER=\(marker)") && HubUnderTest.isAlive(pid)
    }
  }

  @Test func whatAPluginForksDiesWithItsInstanceAndWithTheHub() throws {
    // 1. The instance is restarted: its escaped grandchild goes with the old process.
    let restartMarker = "restart-\(UUID().uuidString)"
    var harness = try startHub(mode: "fork", marker: restartMarker)
    try eventually("the escaped child runs") { Self.marked(restartMarker).count == 1 }
    let first = Self.marked(restartMarker)
    #expect(try harness.cli("restart", "bad").status == 0)
    try eventually("the first escaped child is gone") { Set(Self.marked(restartMarker)).isDisjoint(with: first) }
    try expectHealthyGetsEverything(harness, from: 1, count: 5)
    // 2. The hub stops (SIGTERM): nothing of the plugin's is left.
    try harness.stop()
    try eventually("no escaped child after the hub stopped") { Self.marked(restartMarker).isEmpty }

    // 3. The hub is SIGKILLed: the hosts get their parent-death signal and take theirs along.
    let killMarker = "kill-\(UUID().uuidString)"
    harness = try startHub(mode: "fork", marker: killMarker)
    try eventually("the escaped child runs") { Self.marked(killMarker).count == 1 }
    harness.process!.signal(SIGKILL)
    try eventually("no escaped child after the hub was SIGKILLed; output:\n\(harness.process!.output)") {
      Self.marked(killMarker).isEmpty
    }
  }

  /// The children of `parent` now, each as (pid, start time): a pid alone may be reused.
  static func children(of parent: Int32) -> Set<String> {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    var found: Set<String> = []
    for pid in entries.compactMap(Int32.init) {
      guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { continue }
      // After "(comm)": state, ppid, ... field 22 is the start time.
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      guard fields.count > 19, Int32(fields[1]) == parent, fields[0] != "Z" else { continue }
      found.insert("\(pid)@\(fields[19])")
    }
    return found
  }

  /// A fork storm: 10,000 children that stay. Outside a cgroup with pids.max (systemd's
  /// Delegate=yes), nothing refuses the forks; what contains them is that the hub and the
  /// healthy instance do not notice, and that a restart of the instance leaves none of them.
  @Test func tenThousandForksCostOnlyTheirInstance() throws {
    let harness = try startHub(mode: "swarm")
    try harness.waitUntilRunning("bad", "good")
    let hubPID = harness.process!.pid
    let goodPID = try harness.pid(of: "good")
    let host = try #require(try harness.pid(of: "bad"))
    #expect(try harness.cli("send", "bad.poke", "trigger").status == 0)
    var swarm: Set<String> = []
    try eventually("the plugin forked 10,000 children", within: 300) {
      swarm = Self.children(of: host)
      return swarm.count >= 10_000
    }
    try expectHealthyGetsEverything(harness, from: 1, count: 10)
    #expect(try harness.cli("restart", "bad").status == 0)
    try eventually("none of the 10,000 is left after the restart", within: 120) {
      Self.children(of: host).isEmpty && Self.children(of: hubPID).isDisjoint(with: swarm)
    }
    try harness.waitUntilRunning("bad")
    try expectHealthyGetsEverything(harness, from: 11, count: 10)
    #expect(HubUnderTest.isAlive(hubPID))
    #expect(try harness.pid(of: "good") == goodPID)
    try harness.stop()
  }

  @Test func aFloodOfBadValuesIsCountedNotLogged() throws {
    let harness = try startHub(mode: "flood")
    let hub = harness.process!
    // 1,000 invalid UTF-8 texts and 1,000 texts over 4096 bytes: 2,000 refusals.
    try eventually("2,000 refusals counted", within: 60) {
      (try harness.instanceStatus("bad")?["refusals"] as? Int) == 2000
    }
    try expectHealthyGetsEverything(harness, from: 1, count: 10)
    // The summary comes once the 10 s window is over.
    try hub.waitForLine(containing: "lines suppressed in the last", within: 30)
    let refusalLines = hub.lines.filter { $0.contains("[bad]") && $0.contains("refused") }
    // Per kind (two here): the first 3, then summaries.
    #expect(refusalLines.count <= 6, "\(refusalLines.joined(separator: "\n"))")
    let summaries = hub.lines.filter { $0.contains("[bad]") && $0.contains("lines suppressed") }
    #expect(summaries.contains { $0.contains("997 more") })
    try harness.stop()
  }

  @Test func publishingAfterStopIsRefusedQuietly() throws {
    let harness = try startHub(mode: "publish_after_stop")
    let hub = harness.process!
    #expect(try harness.cli("restart", "bad").status == 0)
    try hub.waitForLine(containing: "[bad] running", within: 30)
    try expectHealthyGetsEverything(harness, from: 1, count: 5)
    try harness.stop()
    // The old process ended cleanly; the leftover thread's publishes did not flood the log.
    let refused = hub.lines.filter { $0.contains("[bad]") && $0.contains("refused") }
    #expect(refused.count <= 6, "\(refused.joined(separator: "\n"))")
    #expect(!hub.lines.contains { $0.contains("[bad]") && $0.contains("signal") })
  }

  @Test func aPluginThatExitsZeroInReceiveIsAFailureNotASuccess() throws {
    // Transient: a normal end would not be restarted; exit() inside receive() is not normal.
    let harness = try startHub(mode: "exit_in_receive", extra: ["restart": "transient"])
    let hub = harness.process!
    try hub.waitForLine(containing: "[bad] running", within: 30)
    #expect(try harness.cli("send", "bad.poke", "trigger").status == 0)
    try hub.waitForLine(containing: "the plugin exited with status 70", within: 30)
    try hub.waitForLine(containing: "[bad] restarting in", within: 30)
    try expectHealthyGetsEverything(harness, from: 1, count: 5)
    try harness.stop()
  }

  @Test func brokenDescriptorsAreRefusedWithAReason() throws {
    for (define, expected) in [
      ("-DSIZE_ZERO", "descriptor size 0 is smaller than"), ("-DNULL_CREATE", "leaves create NULL"),
    ] {
      let harness = try HubUnderTest("patchbay-it")
      try harness.compileCPlugin(name: "hostile", source: HostilePlugin.source, defines: [define, "-lpthread"])
      try harness.writeConfig(
        HubTOML()
          .instance("bad", plugin: "hostile"))
      let check = try harness.cli("check")
      #expect(check.status != 0)
      #expect(check.output.contains(expected), "\(check.output)")
    }
  }
}
