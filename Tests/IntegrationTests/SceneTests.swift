import Foundation
import PatchbayTestSupport
import Testing

/// Scenes: many ports set at once, from a route, `patchbay scene` or `patchbay send`, with
/// `scene.NAME.activated` to route from, and type-checked by `patchbay check`.
@Suite(.serialized) struct SceneTests {
  /// The counter, a probe and `scene` (its text kept as written where check's reading of it
  /// is under test), routed so that a double click activates it and its activation counts.
  func config(_ harness: HubUnderTest, scene: HubTOML) -> HubTOML {
    HubTOML()
      .instance("counter", plugin: "example-c")
      .probe(
        record: harness.path + "/probe.jsonl",
        ports: [
          .state("lamp", "light"), .state("night", "bool"), .event("press", "button"), .event("count", "integer"),
        ]
      ) + scene
      + HubTOML()
      .route(from: "probe.press.out", to: "scene.good_night", ["filter": ["double_click"]])
      .routes(["scene.good_night.activated": "counter.increment", "counter.count": "probe.count"])
  }

  static let goodNight = HubTOML().table(
    "scenes.good_night", ["probe.lamp": ["on": false], "probe.night": true, "counter.set": 40])

  @Test func aSceneSetsEveryPortAndAnnouncesItself() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "example-c", source: HubUnderTest.counterSource)
    try harness.linkBuiltPlugins(["example-swift"])
    try harness.writeConfig(config(harness, scene: Self.goodNight))
    #expect(try harness.cli("check").status == 0)
    try harness.start()
    // From the CLI: every port gets its value, and the activation increments the counter.
    let activated = try harness.cli("scene", "good_night")
    #expect(activated.status == 0, "\(activated.output)")
    try eventually("the probe got the scene's values") {
      let lines = harness.lines("probe.jsonl")
      return lines.contains(#"{"port":"night","value":true}"#) && lines.contains { $0.contains(#""port":"lamp""#) }
    }
    func counted(_ number: Int) -> Bool {
      harness.lines("probe.jsonl").contains(#"{"port":"count","value":\#(number)}"#)
    }
    // The scene sets 40; routed from scene.good_night.activated, the increment follows it.
    try eventually("counter set to 40, then incremented by the activation") { counted(40) && counted(41) }
    // From a route: a double click on the probe's button activates it again.
    #expect(try harness.cli("send", "probe.press", "double_click").status == 0)
    try eventually("activated by a route") {
      counted(41) && harness.lines("probe.jsonl").filter { $0.contains(#""value":41"#) }.count >= 2
    }
    // From `patchbay send`, and an unknown scene is refused with a suggestion.
    #expect(try harness.cli("send", "scene.good_night", "trigger").status == 0)
    try eventually("activated by send") {
      harness.lines("probe.jsonl").filter { $0.contains(#""value":41"#) }.count >= 3
    }
    let unknown = try harness.cli("scene", "good_nite")
    #expect(unknown.status != 0)
    #expect(unknown.output.contains("did you mean 'good_night'"), "\(unknown.output)")
    let status = try harness.cli("status").output
    #expect(status.contains("good_night  3 ports  activated 3 times"), "\(status)")
    try harness.stop()
  }

  @Test func checkTypeChecksSceneValuesWithSuggestions() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "example-c", source: HubUnderTest.counterSource)
    try harness.linkBuiltPlugins(["example-swift"])
    try harness.writeConfig(
      config(
        harness,
        scene: HubTOML().raw(
          """
          [scenes.good_night]
          "probe.lamp" = { on = "no" }
          "probe.nigth" = true
          "counter.count" = 1
          "counter.set" = "forty"
          """)))
    let check = try harness.cli("check")
    #expect(check.status != 0)
    #expect(check.output.contains("scenes.good_night.\"probe.lamp\""), "\(check.output)")
    #expect(check.output.contains("did you mean 'night'"), "\(check.output)")
    #expect(check.output.contains("'counter.count' is an output port"), "\(check.output)")
    #expect(check.output.contains("counter.set takes integer"), "\(check.output)")
    // A bare dotted key is a table in TOML: explained, not misread.
    try harness.writeConfig(config(harness, scene: HubTOML().raw("[scenes.good_night]\nprobe.night = true\n")))
    let bare = try harness.cli("check")
    #expect(bare.output.contains("in quotes"), "\(bare.output)")
  }
}
