import Foundation
import PatchbayTestSupport
import Testing

/// `when` on a route: it fires only while a state output's retained value matches.
@Suite(.serialized) struct RouteConditionTests {
  func config(_ harness: HubUnderTest, when: HubTOML.Value) -> HubTOML {
    HubTOML()
      .instance("counter", plugin: "example-c")
      .probe(
        record: harness.path + "/probe.jsonl",
        ports: [.state("mode", "text"), .state("lamp", "light"), .event("press", "button"), .event("count", "integer")]
      )
      .route(from: "probe.press.out", to: "counter.increment", ["when": when])
      .route(from: "counter.count", to: "probe.count")
  }

  func counts(_ harness: HubUnderTest) -> [String] {
    harness.lines("probe.jsonl").filter { $0.contains(#""port":"count""#) }
  }

  @Test func aRouteFiresOnlyWhileTheConditionHolds() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "example-c", source: HubUnderTest.counterSource)
    try harness.linkBuiltPlugins(["example-swift"])
    try harness.writeConfig(
      config(harness, when: ["port": "probe.mode.out", "equals": "away"])
        .route(from: "probe.press.out", to: "counter.increment", ["when": "probe.lamp.out.on == true"]))
    #expect(try harness.cli("check").status == 0)
    try harness.start()
    try eventually("the counter's first count arrived") { counts(harness).count == 1 }
    // No retained mode yet, then "home": the conditional route stays quiet.
    #expect(try harness.cli("send", "probe.mode", "home").status == 0)
    try eventually("mode is home") { harness.lines("probe.jsonl").contains(#"{"port":"mode","value":"home"}"#) }
    #expect(try harness.cli("send", "probe.press", "click").status == 0)
    // "away": now a press counts. The marker value 1 arrives only through the route.
    #expect(try harness.cli("send", "probe.mode", "away").status == 0)
    try eventually("mode is away") { harness.lines("probe.jsonl").contains(#"{"port":"mode","value":"away"}"#) }
    #expect(try harness.cli("send", "probe.press", "click").status == 0)
    try eventually("one press counted") { counts(harness).last == #"{"port":"count","value":1}"# }
    // The field form: the lamp turned on makes the second route fire too (two per press).
    #expect(try harness.cli("send", "probe.lamp", #"{"on":true}"#).status == 0)
    try eventually("lamp on") { harness.lines("probe.jsonl").contains { $0.contains(#""port":"lamp""#) } }
    #expect(try harness.cli("send", "probe.press", "click").status == 0)
    try eventually("two more counted") { counts(harness).last == #"{"port":"count","value":3}"# }
    #expect(!counts(harness).contains(#"{"port":"count","value":4}"#))
    try harness.stop()
  }

  @Test func checkTypeChecksConditions() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "example-c", source: HubUnderTest.counterSource)
    try harness.linkBuiltPlugins(["example-swift"])
    let conditions: [(when: HubTOML.Value, expected: String)] = [
      (["port": "probe.mode.out", "equals": 3], "probe.mode.out is text"),
      ("probe.mdoe.out == away", "did you mean 'mode.out'"),
      ("probe.press.out == click", "is an event port"),
      ("probe.lamp.out.onn == true", "did you mean 'on'"),
      (["port": "probe.mode.out"], "exactly one of equals and not_equals"),
    ]
    for (when, expected) in conditions {
      try harness.writeConfig(config(harness, when: when))
      let check = try harness.cli("check")
      #expect(check.status != 0, "\(when.toml)")
      #expect(check.output.contains("routes[1].when"), "\(check.output)")
      #expect(check.output.contains(expected), "\(when.toml): \(check.output)")
    }
  }
}
