import FlicBLESimulator
import Foundation
import PatchbayTestSupport
import Testing

/// A Flic Duo through a real hub: the simulated Duo -> the BlueZ stand-in -> the flic-ble plugin
/// (`model = "duo"`) -> routes -> the example-swift probe. Both buttons and the swipes arrive as
/// hub values, and nothing twice across a reconnect and a hub restart.
@Suite(.serialized, .enabled(if: BlueZStandIn.unavailable == nil, "\(BlueZStandIn.unavailable ?? "")"))
struct FlicBLEDuoTests {
  let hub: HubUnderTest
  let bluez: BlueZStandIn
  let desk = "06:07:08:09:0A:0C"
  let factoryKey = SimulatedFlicButton.testFactoryKeyHex

  init() throws {
    hub = try HubUnderTest("patchbay-flic-duo", plugins: ["flic-ble", "example-swift"])
    bluez = try BlueZStandIn()
    try bluez.control("add \(desk) duo")
  }

  var directory: TemporaryDirectory { hub.directory }

  func startHub() throws {
    try hub.writeConfig(
      HubTOML()
        .instance("buttons", plugin: "flic-ble", ["test_factory_key": .string(factoryKey)])
        .arrayTable(
          "instances.buttons.buttons", ["name": "desk", "address": .string(desk.lowercased()), "model": "duo"]
        )
        .probe(
          record: directory.path + "/probe.jsonl",
          ports: [
            .event("big", "button"), .event("small", "button"), .event("swipe", "text"), .event("small_swipe", "text"),
            .state("connected", "bool"),
          ]
        )
        .routes([
          "buttons.desk.button": "probe.big", "buttons.desk.small_button": "probe.small",
          "buttons.desk.swipe": "probe.swipe", "buttons.desk.small_swipe": "probe.small_swipe",
          "buttons.desk.connected": "probe.connected",
        ]))
    try hub.start(environment: bluez.bus.environment)
  }

  func tool(_ arguments: String...) throws -> (status: Int32, output: String) {
    try hub.flicBLETool(arguments, bluez: bluez)
  }

  func recorded(_ port: String) -> [String] { hub.probe.texts(port) }

  func actions(_ port: String) -> [String] { hub.probe.actions(port) }

  var everything: String {
    "big \(recorded("big")) small \(recorded("small")) swipe \(recorded("swipe")) "
      + "small_swipe \(recorded("small_swipe"))\nlog:\n\(hub.log)\nstand-in:\n\(bluez.log)"
  }

  @Test func bothButtonsAndSwipesArriveAsHubValuesAndNothingTwiceAcrossAReconnect() throws {
    try startHub()
    defer { _ = try? hub.stop() }
    let paired = try tool("pair", "buttons", "desk", "--address", desk, "--test-factory-key", factoryKey)
    #expect(paired.status == 0 && paired.output.contains("paired desk (\(desk)"), "pair: \(paired.output)")
    try eventually("connected; \(everything)") { recorded("connected").last == "true" }

    try bluez.control("press \(desk) small-click")
    try eventually("the small click; \(everything)") { actions("small") == ["click"] }
    try bluez.control("press \(desk) swipe-left")
    try eventually("the swipe; \(everything)") { recorded("swipe") == [#""left""#] }
    try bluez.control("press \(desk) click")
    try bluez.control("press \(desk) small-swipe-up")
    try bluez.control("press \(desk) small-hold")
    try eventually("a big click, a small swipe and a small hold; \(everything)") {
      actions("big") == ["click"] && recorded("small_swipe") == [#""up""#] && actions("small") == ["click", "hold"]
    }
    // A swipe is not also a click.
    #expect(actions("big") == ["click"])

    // Out of range: a small double click waits in the button, and arrives once, queued.
    try bluez.control("out-of-range \(desk)")
    try eventually("disconnected") { recorded("connected").last == "false" }
    try bluez.control("press \(desk) small-double-click")
    try bluez.control("advance \(desk) 1")
    try bluez.control("in-range \(desk)")
    try eventually("the queued small double click; \(everything)") {
      actions("small") == ["click", "hold", "double_click"]
    }
    #expect(recorded("small").last?.contains(#""queued":true"#) == true, "\(recorded("small"))")

    // Another reconnect and a hub restart deliver nothing twice: both counts are persisted.
    try bluez.control("out-of-range \(desk)")
    try eventually("disconnected again") { recorded("connected").last == "false" }
    try bluez.control("in-range \(desk)")
    try eventually("connected again") { recorded("connected").last == "true" }
    _ = try hub.stop()
    let pairing = try String(contentsOfFile: hub.stateDirectory + "/instances/buttons/desk.flic2", encoding: .utf8)
    #expect(pairing.contains("small_event_count=") && !pairing.contains("small_event_count=0\n"), "\(pairing)")
    // The restarted plugin's own link: the button has started events for it (a press before
    // that would go out live on the old link, which nobody reads any more).
    func starts() -> Int {
      bluez.log.components(separatedBy: "-> conn").filter { $0.contains("initButtonEventsDuoResponse") }.count
    }
    let before = starts()
    try hub.start(environment: bluez.bus.environment)
    try eventually("connected after the hub restart; \(everything)") {
      starts() > before && recorded("connected").last == "true"
    }
    try bluez.control("press \(desk) small-click")
    try bluez.control("press \(desk) swipe-right")
    try eventually("live events after the restart; \(everything)") {
      actions("small").count == 4 && recorded("swipe").count == 2
    }
    #expect(actions("small") == ["click", "hold", "double_click", "click"])
    #expect(actions("big") == ["click"])
    #expect(recorded("swipe") == [#""left""#, #""right""#])
    #expect(recorded("small_swipe") == [#""up""#])
  }
}
