import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Restart, hang detection, buffering while down, persistence, reload and shutdown, with real
/// processes. No timing assertions: every wait is for a condition, with a generous deadline.
@Suite(.serialized) struct SupervisorTests {
  /// A fault worker recording what its events port gets, the C counter (with `counter`'s
  /// settings) feeding it and a probe, and a probe's click cycling its scene.
  func faultConfig(_ harness: HubUnderTest, counter: KeyValuePairs<String, HubTOML.Value> = [:]) -> HubTOML {
    HubTOML()
      .instance(
        "worker", plugin: "fault",
        [
          "record": .string(harness.path + "/worker.txt"), "backoff_initial_ms": 100, "heartbeat_interval_ms": 200,
          "hang_timeout_ms": 1500,
        ]
      )
      .instance("counter", plugin: "example-c", counter)
      .probe(
        record: harness.path + "/probe.jsonl",
        ports: [.state("count", "integer"), .state("scene", "bool"), .event("press", "button")]
      )
      .routes(["counter.count": "worker.events", "counter.count": "probe.count"])
      .route(
        from: "probe.press.out", to: "probe.scene", ["name": "bedside", "filter": ["click"], "cycle": [true, false]])
  }

  @Test func hungPluginIsKilledAndRestartedAndNothingIsLost() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["fault", "example-c", "example-swift"])
    try harness.writeConfig(faultConfig(harness))
    try harness.start()
    let hub = harness.process!
    try eventually("worker got 0") { harness.lines("worker.txt") == ["0"] }
    #expect(try harness.cli("send", "worker.command", "hang").status == 0)
    // While it hangs, 5 events are routed to it; they wait in its inbox.
    for _ in 0..<5 { #expect(try harness.cli("send", "counter.increment", "trigger").status == 0) }
    try hub.waitForLine(containing: "[worker] not answering heartbeats")
    try hub.waitForLine(containing: "stopped answering heartbeats")
    // count is a state output, so the restarted worker gets the newest count; the events
    // port keeps every value it was given in order, exactly once.
    try eventually("worker caught up: \(harness.lines("worker.txt")); hub output:\n\(hub.output)") {
      harness.lines("worker.txt").last == "5"
    }
    let seen = harness.lines("worker.txt").compactMap(Int.init)
    #expect(seen == seen.sorted())
    #expect(Set(seen).count == seen.count)
    try harness.stop()
  }

  @Test func toggleStateSurvivesHubRestart() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["fault", "example-c", "example-swift"])
    try harness.writeConfig(faultConfig(harness))
    try harness.start()
    #expect(try harness.cli("send", "probe.press", "click").status == 0)
    try eventually("scene true") { harness.lines("probe.jsonl").contains(#"{"port":"scene","value":true}"#) }
    try harness.stop()
    try harness.start()
    #expect(try harness.cli("send", "probe.press", "click").status == 0)
    try eventually("scene false after restart") {
      harness.lines("probe.jsonl").contains(#"{"port":"scene","value":false}"#)
    }
    try harness.stop()
  }

  @Test func reloadRestartsOnlyWhatChangedAndRefusesBadConfig() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["fault", "example-c", "example-swift"])
    try harness.writeConfig(faultConfig(harness))
    try harness.start()
    func pids() throws -> [String: Int32] {
      let output = try harness.cli("status", "--json", "--socket", harness.socketPath).output
      let json = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
      var result: [String: Int32] = [:]
      for instance in json?["instances"] as? [[String: Any]] ?? [] {
        if let name = instance["name"] as? String, let pid = instance["pid"] as? Int32 { result[name] = pid }
      }
      return result
    }
    var before: [String: Int32] = [:]
    try eventually("three pids") {
      before = try pids()
      return before.count == 3
    }
    try harness.writeConfig(
      faultConfig(harness, counter: ["step": 2]))
    let reload = try harness.cli("reload")
    #expect(reload.status == 0, "\(reload.output)")
    #expect(reload.output.contains("restarted counter"))
    var after: [String: Int32] = [:]
    try eventually("counter has a new pid") {
      after = try pids()
      return after.count == 3 && after["counter"] != before["counter"]
    }
    #expect(after["worker"] == before["worker"])
    #expect(after["probe"] == before["probe"])

    // An invalid config is refused with check's messages; nothing changes.
    try harness.writeConfig(faultConfig(harness).route(from: "counter.count", to: "probe.scene"))
    let refused = try harness.cli("reload")
    #expect(refused.status == 1)
    #expect(refused.output.contains("type mismatch: counter.count is integer but probe.scene is bool"))
    #expect(try pids() == after)

    // A file that made the TOML parser abort (a config fuzzer finding) is refused too, as a
    // syntax error; the hub keeps running.
    let finding = HubUnderTest.repositoryRoot + "/Fuzz/config/findings/toml-parse-key-assertion.toml"
    try FileManager.default.removeItem(atPath: harness.configPath)
    try FileManager.default.copyItem(atPath: finding, toPath: harness.configPath)
    let crashing = try harness.cli("reload", "--socket", harness.socketPath)
    #expect(crashing.status == 1)
    #expect(crashing.output.contains("reload refused"))
    #expect(harness.process!.isRunning)
    #expect(try pids() == after)
    try harness.stop()
  }

  @Test func memoryLimitEndsALeakingPluginAndSlowConsumersDropCountedEvents() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["fault", "example-c", "example-swift"])
    try harness.writeConfig(
      HubTOML()
        .instance("leaky", plugin: "fault", ["memory_limit_mb": 300, "restart": "temporary"])
        .instance("slow", plugin: "fault", ["queue_size": 5, "hang_timeout_ms": 1000])
        .instance("source", plugin: "fault")
        .arrayTable("routes", ["name": "flood", "from": "source.flood", "to": "slow.events"]))
    try harness.start()
    let hub = harness.process!
    #expect(try harness.cli("send", "leaky.command", "leak 1000").status == 0)
    try hub.waitForLine(containing: "[leaky] plugin process")
    try hub.waitForLine(containing: "[leaky] failed: ended")
    // Each event takes longer than its hang timeout: a producer waits that long for room in
    // the queue, then drops (a consumer that finishes events, however slowly, slows its
    // producers instead: BackPressureTests). More than the queue (5) plus what the plugin
    // host's socket holds (a few hundred small frames).
    #expect(try harness.cli("send", "slow.command", "slow 5000").status == 0)
    #expect(try harness.cli("send", "source.command", "flood 2000").status == 0)
    try hub.waitForLine(containing: "queue of slow.events is full")
    try eventually("values and drops counted on the route") {
      let status = try harness.cli("status").output
      let line = status.split(separator: "\n").first { $0.contains("routes[1]  flood  values ") }
      return line.map { !$0.hasSuffix("drops 0") && !$0.contains("values 0 ") } ?? false
    }
    try harness.stop()
  }

  @Test func restartCommandRevivesAFailedInstanceAndShutdownEscalatesPastAHang() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["fault"])
    try harness.writeConfig(
      HubTOML()
        .instance("once", plugin: "fault", ["restart": "temporary"])
        .instance("stuck", plugin: "fault", ["stop_timeout_ms": 500, "hang_timeout_ms": 600000]))
    try harness.start()
    let hub = harness.process!
    #expect(try harness.cli("send", "once.command", "exit 7").status == 0)
    try hub.waitForLine(containing: "[once] failed: ended (the plugin exited with status 7)")
    #expect(try harness.cli("restart", "once").status == 0)
    try eventually("once running again") {
      hub.lines.filter { $0.contains("[once] running") }.count == 2
    }
    // A plugin stuck in a callback ignores the stop message; the hub escalates to SIGTERM,
    // which the stuck plugin host does not survive, within the stop timeouts.
    #expect(try harness.cli("send", "stuck.command", "hang").status == 0)
    let children = harness.pluginPIDs()
    #expect(try hub.terminate(within: 60) == 0)
    #expect(hub.lines.contains { $0.contains("[stuck] did not stop within") })
    try eventually("plugin processes gone", within: 10) { children.allSatisfy { !HubUnderTest.isAlive($0) } }
  }

  @Test func retainedStateReachesConsumersAfterAHubRestart() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["example-swift"])
    func config(_ record: String) -> HubTOML {
      // The source only publishes what it is sent, so after a restart the only 7 the consumer
      // can see is the hub's retained value.
      HubTOML()
        .probe("source", ports: [.state("level", "integer")])
        .probe(record: harness.path + "/\(record)", ports: [.state("count", "integer")])
        .route(from: "source.level.out", to: "probe.count")
    }
    try harness.writeConfig(config("probe.jsonl"))
    try harness.start()
    #expect(try harness.cli("send", "source.level", "7").status == 0)
    try eventually("7 recorded") { harness.lines("probe.jsonl").contains(#"{"port":"count","value":7}"#) }
    try harness.stop()
    let state = try String(contentsOfFile: harness.directory.path + "/state/hub-state.json", encoding: .utf8)
    #expect(state.contains("source.level.out"))
    try harness.writeConfig(config("probe2.jsonl"))
    try harness.start()
    try eventually("retained 7 delivered after the restart") {
      harness.lines("probe2.jsonl") == [#"{"port":"count","value":7}"#]
    }
    try harness.stop()
  }

  @Test func killingTheHubLeavesNoPluginProcess() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["fault", "example-c", "example-swift"])
    try harness.writeConfig(faultConfig(harness))
    try harness.start()
    var children: [Int32] = []
    try eventually("three plugin processes") {
      children = harness.pluginPIDs()
      return children.count == 3
    }
    harness.process!.signal(SIGKILL)
    try eventually("plugin processes gone", within: 10) { children.allSatisfy { !HubUnderTest.isAlive($0) } }
  }
}
