import FlicBLESimulator
import Foundation
import PatchbayTestSupport
import Testing

/// Flic Twists through a real hub: simulated Twists -> the BlueZ stand-in (the Twist's own
/// service) -> the flic-ble plugin (`model = "twist"`) -> routes -> the hue plugin ->
/// `patchbay-sim hue`, and the example-swift probe. Turning the dimmer Twist dims a Hue group
/// through `NAME.dimmer`; its push button clicks; the selector Twist's slot follows push-and-turn.
@Suite(.serialized, .enabled(if: BlueZStandIn.unavailable == nil, "\(BlueZStandIn.unavailable ?? "")"))
struct FlicBLETwistTests {
  static let username = "pbtest-twist-0123456789abcdef"
  let hub: HubUnderTest
  let bluez: BlueZStandIn
  let dial = "06:07:08:09:0A:0D"
  let picker = "06:07:08:09:0A:0E"
  /// A simulated Twist is signed by the Twist's own test key.
  let factoryKey = SimulatedFlicButton.testFactoryKeyHex(for: .twist)

  init() throws {
    hub = try HubUnderTest("patchbay-flic-twist", plugins: ["flic-ble", "example-swift", "hue"])
    bluez = try BlueZStandIn()
    try bluez.control("add \(dial) twist")
    try bluez.control("add \(picker) twist")
  }

  var directory: TemporaryDirectory { hub.directory }

  func startHub(bridgePort: Int) throws {
    try hub.writeConfig(
      HubTOML()
        .instance(
          "buttons", plugin: "flic-ble",
          ["test_factory_key": [.string(SimulatedFlicButton.testFactoryKeyHex), .string(factoryKey)]]
        )
        .arrayTable(
          "instances.buttons.buttons", ["name": "dial", "address": .string(dial.lowercased()), "model": "twist"]
        )
        .arrayTable(
          "instances.buttons.buttons",
          ["name": "picker", "address": .string(picker.lowercased()), "model": "twist", "twist_mode": "selector"]
        )
        .instance(
          "lights", plugin: "hue",
          ["bridge": "127.0.0.1:\(bridgePort)", "username": .string(Self.username), "poll_interval_s": 0.5]
        )
        .arrayTable("instances.lights.groups", ["name": "living", "id": "1"])
        .probe(
          record: directory.path + "/probe.jsonl",
          ports: [
            .event("dial_button", "button"), .state("dial_twist", "number"), .state("dial_connected", "bool"),
            .state("dial_mv", "integer"), .state("picker_slot", "integer"), .state("picker_twist", "number"),
            .state("picker_connected", "bool"),
          ]
        )
        .routes([
          "buttons.dial.dimmer": "lights.living.light", "buttons.dial.button": "probe.dial_button",
          "buttons.dial.twist": "probe.dial_twist", "buttons.dial.connected": "probe.dial_connected",
          "buttons.dial.battery_mv": "probe.dial_mv", "buttons.picker.slot": "probe.picker_slot",
          "buttons.picker.twist": "probe.picker_twist", "buttons.picker.connected": "probe.picker_connected",
        ]))
    try hub.start(environment: bluez.bus.environment)
  }

  func recorded(_ port: String) -> [String] { hub.probe.texts(port) }

  /// Light `id`'s `bri` (1...254) and `on` as the bridge holds them.
  func light(_ bridge: SimulatorUnderTest, _ id: String) -> (on: Bool, bri: Int)? {
    guard let answer = try? bridge.control("light \(id)"),
      let json = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any],
      let state = json["state"] as? [String: Any], let on = state["on"] as? Bool, let bri = state["bri"] as? Int
    else { return nil }
    return (on, bri)
  }

  var everything: String {
    "dial \(recorded("dial_twist")) \(recorded("dial_button")) picker \(recorded("picker_slot")) "
      + "\(recorded("picker_twist"))\nlog:\n\(hub.log)\nstand-in:\n\(bluez.log)"
  }

  @Test func aTwistDimsAHueGroupClicksAndPicksSlots() throws {
    let bridge = try SimulatorUnderTest(
      .hue, directory: directory, name: "bridge",
      arguments: ["--lights", "2", "--group", "Living=1,2", "--username", Self.username])
    try startHub(bridgePort: bridge.port)
    defer { _ = try? hub.stop() }
    for (name, address) in [("dial", dial), ("picker", picker)] {
      let paired = try hub.flicBLETool(
        ["pair", "buttons", name, "--address", address, "--test-factory-key", factoryKey], bluez: bluez)
      #expect(paired.status == 0 && paired.output.contains("paired \(name) (\(address)"), "pair: \(paired.output)")
    }
    try eventually("both connected; \(everything)") {
      recorded("dial_connected").last == "true" && recorded("picker_connected").last == "true"
    }
    // The Twist reports its cells in millivolts (the simulator's 3000).
    try eventually("the battery; \(everything)") { recorded("dial_mv").last == "3000" }

    // Half a turn: 50 %, and the group follows (bri 1...254).
    try bluez.control("twist \(dial) +24576")
    try eventually("the dial at 50 %; \(everything)") { recorded("dial_twist").last == "50.0" }
    try eventually("the group at 50 %: \(String(describing: light(bridge, "1")))", within: 120) {
      guard let one = light(bridge, "1"), let two = light(bridge, "2") else { return false }
      return one.on && two.on && abs(one.bri - 127) <= 2 && abs(two.bri - 127) <= 2
    }
    // A quarter back, then past the bottom: 25 %, then off.
    try bluez.control("twist \(dial) -12288")
    try eventually("the group at 25 %: \(String(describing: light(bridge, "1")))", within: 120) {
      guard let one = light(bridge, "1") else { return false }
      return recorded("dial_twist").last == "25.0" && one.on && abs(one.bri - 64) <= 2
    }
    try bluez.control("twist \(dial) -40000")
    try eventually("the group off at 0 %: \(String(describing: light(bridge, "1")))", within: 120) {
      recorded("dial_twist").last == "0.0" && light(bridge, "1")?.on == false
    }

    // The push button: the Flic 2's gestures.
    try bluez.control("press \(dial) click")
    try bluez.control("press \(dial) double-click")
    try bluez.control("press \(dial) hold")
    try eventually("click, double click, hold; \(everything)") {
      hub.probe.actions("dial_button") == ["click", "double_click", "hold"]
    }

    // The selector: push and turn three twelfths picks slot 4 (of 1-12); each slot has its level.
    try bluez.control("push-twist \(picker) +12288")
    try eventually("slot 4; \(everything)") { recorded("picker_slot").last == "4" }
    try bluez.control("twist \(picker) +8192")
    try eventually("slot 4 at 16.7 %; \(everything)") { recorded("picker_twist").last == "16.7" }
    try bluez.control("push-twist \(picker) -12288")
    try eventually("back to slot 1, at its own 0 %; \(everything)") {
      recorded("picker_slot").last == "1" && recorded("picker_twist").last == "0.0"
    }
    try bluez.control("push-twist \(picker) +12288")
    try eventually("slot 4 again, its level kept; \(everything)") {
      recorded("picker_slot").last == "4" && recorded("picker_twist").last == "16.7"
    }

    // A hub restart resumes where the dial was: the positions wait in the state directory, and
    // the restarted plugin publishes them when the Twist's events start again.
    try bluez.control("twist \(dial) +12288")
    let file = hub.stateDirectory + "/instances/buttons/dial.twist"
    try eventually("the dial's positions saved; \(everything)") {
      (try? String(contentsOfFile: file, encoding: .utf8))?.hasPrefix("12288,") == true
    }
    let published = recorded("dial_twist").filter { $0 == "25.0" }.count
    func starts() -> Int { bluez.log.components(separatedBy: "-> initButtonEventsResponse").count - 1 }
    let before = starts()
    _ = try hub.stop()
    try hub.start(environment: bluez.bus.environment)
    try eventually("the dial at 25 % again after the restart; \(everything)") {
      starts() >= before + 2 && recorded("dial_twist").filter { $0 == "25.0" }.count > published
    }
    try bluez.control("twist \(dial) +4096")
    try eventually("the next turn goes on from 25 %; \(everything)") { recorded("dial_twist").last == "33.3" }
  }
}
