import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The hub with a C plugin and a Swift plugin, each in its own process, wired by routes.
@Suite(.serialized) struct EndToEndTests {
  @Test func valuesFlowBothWaysBetweenCAndSwiftPlugins() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "counter", source: HubUnderTest.counterSource)
    try harness.linkBuiltPlugins(["example-swift"])
    try harness.writeConfig(
      HubTOML()
        .instance("counter", plugin: "counter", ["step": 5])
        .probe(
          record: harness.path + "/probe.jsonl",
          ports: [.state("count", "integer"), .event("press", "button"), .state("even", "bool")]
        )
        // C -> Swift
        .route(from: "counter.count", to: "probe.count")
        // Swift -> C, through a transform: only clicks increment.
        .route(from: "probe.press.out", to: "counter.increment", ["filter": ["click"]])
        // A cycle transform on the way back into Swift.
        .route(from: "probe.count.out", to: "probe.even", ["cycle": [true, false]]))
    try harness.start()
    // The counter publishes 0 at start; it reaches the Swift plugin.
    try eventually("count 0 recorded") { harness.lines("probe.jsonl").contains(#"{"port":"count","value":0}"#) }
    for action in ["click", "hold", "click"] {
      #expect(try harness.cli("send", "probe.press", action).status == 0)
    }
    // Two clicks passed the filter: the C counter counted 5, 10 and the values came back.
    try eventually("count 10 recorded") { harness.lines("probe.jsonl").contains(#"{"port":"count","value":10}"#) }
    #expect(!harness.lines("probe.jsonl").contains(#"{"port":"count","value":15}"#))
    try eventually("cycle delivered") { harness.lines("probe.jsonl").contains { $0.contains(#""even""#) } }

    let status = try harness.cli("status", "--json")
    #expect(status.status == 0)
    #expect(status.output.contains(#""name" : "counter""#))
    #expect(status.output.contains(#""phase" : "running""#))
    let json = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
    let instances = json?["instances"] as? [[String: Any]] ?? []
    let counter = instances.first { $0["name"] as? String == "counter" }
    #expect((counter?["messagesIn"] as? Int ?? 0) >= 2)
    #expect((counter?["messagesOut"] as? Int ?? 0) >= 3)

    // One plugin-host process per instance, children of the hub.
    let children = harness.pluginPIDs()
    #expect(children.count == 2)
    let pids = instances.compactMap { $0["pid"] as? Int32 }
    #expect(Set(pids) == Set(children))

    // SIGTERM: exit 0 and no plugin process left behind.
    #expect(try harness.process!.terminate(within: 60) == 0)
    try eventually("plugin processes gone", within: 10) { children.allSatisfy { !HubUnderTest.isAlive($0) } }
  }

  @Test func pluginBuiltAgainstTheFrozenV1HeaderLoads() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(
      name: "old", source: HubUnderTest.counterSource,
      includeDirectory: HubUnderTest.repositoryRoot + "/Tests/Fixtures/abi-1.0")
    try harness.writeConfig(
      HubTOML()
        .instance("old", plugin: "old"))
    let check = try harness.cli("check")
    #expect(check.status == 0, "\(check.output)")
    #expect(check.output.contains("OK (1 instances, 0 routes)"))
  }

  @Test func refusesBadLibrariesAndKeepsRunningTheRest() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "counter", source: HubUnderTest.counterSource)
    // Built against a header that claims ABI major 2.
    try harness.compileCPlugin(
      name: "future",
      source: HubUnderTest.counterSource.replacingOccurrences(
        of: ".abi_major = PB_ABI_MAJOR", with: ".abi_major = PB_ABI_MAJOR + 1"))
    // A shared library without the entry symbol.
    try harness.compileCPlugin(
      name: "nosymbol", source: HubUnderTest.counterSource, defines: ["-DPB_TEST_DESCRIBE_SYMBOL=something_else"])
    try harness.linkBuiltPlugins(["example-swift"])
    try harness.writeConfig(
      Self.counterToProbe(
        harness, HubTOML().instance("future", plugin: "future").instance("nosymbol", plugin: "nosymbol")))
    let check = try harness.cli("check")
    #expect(check.status == 1)
    #expect(check.output.contains("built for plugin ABI 2.0, this hub speaks ABI 1.3"))
    #expect(check.output.contains("no entry symbol 'patchbay_plugin_describe'"))

    try harness.start()
    let hub = harness.process!
    try hub.waitForLine(containing: "built for plugin ABI 2.0, this hub speaks ABI 1.3")
    try hub.waitForLine(containing: "no entry symbol")
    #expect(try harness.cli("send", "counter.increment", "trigger").status == 0)
    try eventually("count 1 recorded") { harness.lines("probe.jsonl").contains(#"{"port":"count","value":1}"#) }
    let plugins = try harness.cli("plugins")
    #expect(plugins.output.contains("future: REFUSED"))
    #expect(plugins.output.contains("counter 1.0.0 (ABI 1.0)"))
    try harness.stop()
  }

  @Test func crashingPluginsCostOnlyTheirOwnProcess() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "counter", source: HubUnderTest.counterSource)
    try harness.linkBuiltPlugins(["example-swift", "fault"])
    try harness.writeConfig(
      Self.counterToProbe(
        harness,
        HubTOML()
          .instance(
            "crashy", plugin: "fault", ["on_start": "segfault", "max_restarts": 2, "backoff_initial_ms": 50]
          )
          .instance("aborter", plugin: "fault", ["on_input": "abort", "restart": "temporary"])))
    try harness.start()
    let hub = harness.process!
    try hub.waitForLine(containing: "killed by signal SIGSEGV")
    #expect(try harness.cli("send", "aborter.events", "1").status == 0)
    try hub.waitForLine(containing: "killed by signal SIGABRT")
    // The crash-looping instance is marked failed by its intensity limit; the rest flows.
    try hub.waitForLine(containing: "[crashy] failed: restarted 2 times")
    #expect(try harness.cli("send", "counter.increment", "trigger").status == 0)
    try eventually("count 1 recorded") { harness.lines("probe.jsonl").contains(#"{"port":"count","value":1}"#) }
    let status = try harness.cli("status")
    #expect(status.output.contains("crashy: failed since"))
    #expect(hub.isRunning)
    try harness.stop()
  }

  /// `config`, then the C counter and a probe recording its count.
  static func counterToProbe(_ harness: HubUnderTest, _ config: HubTOML) -> HubTOML {
    config
      .instance("counter", plugin: "counter")
      .probe(record: harness.path + "/probe.jsonl", ports: [.state("count", "integer")])
      .route(from: "counter.count", to: "probe.count")
  }
}
