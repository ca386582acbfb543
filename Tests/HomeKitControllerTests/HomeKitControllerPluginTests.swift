import Foundation
import HAP
import HomeKitControllerPlugin
import HomeKitControllerProtocol
import PatchbayTestSupport
import PatchbayValues
import Testing

/// The homekit-controller plugin in a real hub against a real accessory server: HAP-python
/// 5.0.0 (PyPI) with a colour Lightbulb, a ContactSensor, a StatelessProgrammableSwitch, a
/// Switch and a WindowCovering on one bridge, paired the way `patchbay homekit-controller pair` pairs.
@Suite(.serialized) struct HomeKitControllerPluginTests {
  static let code = "518-08-582"

  /// `patchbay homekit-controller pair INSTANCE` against `accessory` (by address: no mDNS
  /// here); returns the tool's output and the controller id it stored.
  static func pair(_ accessory: HAPPythonAccessory, hub: HubUnderTest, instance: String = "house") throws -> (
    output: String, controllerID: String
  ) {
    let paired = try hub.cli(
      "homekit-controller", "pair", instance, "--device", accessory.deviceID, "--code", code, "--address",
      "127.0.0.1:\(accessory.port)")
    try #require(paired.status == 0, "\(paired.output)")
    let store = ControllerPairingStore(directory: hub.stateDirectory + "/instances/" + instance)
    return (paired.output, try #require(try store.loadPairing()).controllerID)
  }

  static func config(probe: String) -> HubTOML {
    HubTOML()
      .instance("house", plugin: "homekit-controller")
      .probe(
        record: probe,
        ports: [
          .state("door_open", "bool"), .state("lamp", "light"), .event("press", "button"), .state("plug", "bool"),
        ]
      )
      .routes([
        "house.door.open": "probe.door_open", "house.lamp.state": "probe.lamp", "house.button.button": "probe.press",
        "house.plug.state": "probe.plug",
      ])
  }

  static func recorded(_ path: String) -> [JSONValue] {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
      JSONValue.parse(String($0))
    }
  }

  @Test func portsWritesEventsAndARemovedPairing() async throws {
    let accessory = try await HAPPythonAccessory.start(code: Self.code)
    let hub = try HubUnderTest("patchbay-hkc", plugins: ["homekit-controller", "example-swift"])
    let probe = hub.path + "/probe.jsonl"
    try hub.writeConfig(Self.config(probe: probe))
    let (pairing, controllerID) = try Self.pair(accessory, hub: hub)
    print(pairing)

    // The ports, by service, from the database cached at pairing (check sees them too).
    let ports = try hub.cli("plugins", "--ports")
    print(ports.output)
    for port in [
      "input house.lamp.light", "output house.lamp.state", "input house.plug.on", "output house.plug.state",
      "output house.door.open", "output house.button.button", "output house.connected",
      // A service without a kind of its own: each readable characteristic, typed by its format.
      "output house.blind.current_position  integer", "output house.blind.target_position  integer",
      "output house.blind.position_state  integer",
    ] {
      #expect(ports.output.contains(port), "\(port) in:\n\(ports.output)")
    }
    let checked = try hub.check()
    #expect(checked.status == 0, "\(checked.output)")

    try hub.start()
    try hub.waitUntilRunning("house", "probe")
    try eventually("connected to HAP-python; log:\n\(hub.log)") {
      hub.log.contains("connected to Test Bridge")
    }
    let status = try hub.cli("status")
    print(status.output)

    // Hub to accessory: a light command and a switch reach HAP-python's setters.
    try hub.send("house.lamp.light", #"{"on":true,"brightness":50,"color":{"hue":120,"saturation":80}}"#)
    try await accessory.waitForSetter("hue") { $0.doubleValue == 120 }
    try await accessory.waitForSetter("brightness") { $0.doubleValue == 50 }
    try await accessory.waitForSetter("saturation") { $0.doubleValue == 80 }
    try hub.send("house.plug.on", "true")
    try await accessory.waitForSetter("switch") { $0 == .bool(true) || $0 == .integer(1) }

    // Accessory to hub, by events (no polling): the contact sensor opens, the button is pressed.
    try await accessory.send(["cmd": "contact", "value": 1])
    try eventually("the door's open state at the probe: \(Self.recorded(probe))") {
      Self.recorded(probe).contains { $0["port"] == .string("door_open") && $0["value"] == .bool(true) }
    }
    try await accessory.send(["cmd": "press", "value": 1])
    try eventually("the double press at the probe: \(Self.recorded(probe))") {
      Self.recorded(probe).contains {
        $0["port"] == .string("press") && $0["value"]?["action"] == .string("double_click")
      }
    }
    // The light's state followed the write (HAP-python's own events do not echo the writer's:
    // the value read on connect and the accessory's answers keep it).
    try eventually("the lamp's state at the probe: \(Self.recorded(probe))") {
      Self.recorded(probe).contains { $0["port"] == .string("lamp") }
    }

    // HAP-python forgets this controller; at the next connect the plugin says so once and
    // does not try again at once.
    try await accessory.send(["cmd": "unpair", "id": controllerID])
    try hub.stop()
    try hub.start()
    try hub.waitUntilRunning("house")
    try eventually("the pairing-removed report; log:\n\(hub.log)") {
      hub.log.contains("no longer knows this controller")
    }
    // A second connect attempt would come within 1 s; wait for a later proof of life instead of
    // sleeping: a value sent through the hub and recorded by the probe.
    try hub.send("probe.plug", "false")
    try eventually("the hub to pass a value afterwards") {
      Self.recorded(probe).contains { $0["port"] == .string("plug") && $0["value"] == .bool(false) }
    }
    let reports = hub.log.components(separatedBy: "no longer knows this controller").count - 1
    #expect(reports == 1, "one report after the restart:\n\(hub.log)")
    try hub.stop()
  }

  /// The values HAP-python's setter `name` received, in order.
  static func setter(_ accessory: HAPPythonAccessory, _ name: String) -> [Double] {
    accessory.setterCalls.filter { $0.name == name }.compactMap(\.value.doubleValue)
  }

  /// The values routed so far on the route shown as `route` in `patchbay status`.
  static func routedValues(_ hub: HubUnderTest, _ route: String) throws -> Int {
    let status = try hub.cli("status").output
    guard let line = status.split(separator: "\n").first(where: { $0.contains(route) }),
      let count = line.components(separatedBy: "values ").last?.split(separator: " ").first.flatMap({ Int($0) })
    else { return 0 }
    return count
  }

  /// The issue's party on a HomeKit bulb: party-lights steps the HAP-python bulb's hue by 15°,
  /// then puts it back; HAP-python restarted mid-stream gets a write made while it was down,
  /// and its events flow again (resubscribed).
  @Test func partyOnTheBulbAndARestartedAccessory() async throws {
    let accessory = try await HAPPythonAccessory.start(code: Self.code)
    let hub = try HubUnderTest("patchbay-hkc-party", plugins: ["homekit-controller", "party-lights", "example-swift"])
    let probe = hub.path + "/probe.jsonl"
    try hub.writeConfig(
      Self.config(probe: probe)
        .instance("party", plugin: "party-lights", ["lights": ["house.lamp"], "period_s": 6])
        .routes(["party.house.lamp.light": "house.lamp.light", "house.lamp.state": "party.house.lamp.state"]))
    _ = try Self.pair(accessory, hub: hub)
    try hub.start()
    try hub.waitUntilRunning("house", "party", "probe")
    try eventually("connected to HAP-python; log:\n\(hub.log)") { hub.log.contains("connected to Test Bridge") }

    // The bulb as it was before the party; the party captures it from house.lamp.state.
    try hub.send("house.lamp.light", #"{"on":true,"brightness":50,"color":{"hue":120,"saturation":80}}"#)
    try await accessory.waitForSetter("saturation") { $0.doubleValue == 80 }
    try eventually("the bulb's state routed to the party") {
      try Self.routedValues(hub, "house.lamp.state -> party.house.lamp.state") >= 2
    }

    try hub.send("party.run", "true")
    try eventually("four 15° steps at HAP-python: \(Self.setter(accessory, "hue"))") {
      Set(Self.setter(accessory, "hue").filter { $0 != 120 }).count >= 4
    }
    let steps = Self.setter(accessory, "hue").filter { $0 != 120 }
    #expect(steps.allSatisfy { $0.truncatingRemainder(dividingBy: 15) == 0 }, "\(steps)")
    try hub.send("party.run", "false")
    try eventually(
      "the bulb restored: hue \(Self.setter(accessory, "hue")), saturation \(Self.setter(accessory, "saturation"))"
    ) {
      Self.setter(accessory, "hue").last == 120 && Self.setter(accessory, "saturation").last == 80
    }
    print("HAP-python's hue setter during the party and the restore: \(Self.setter(accessory, "hue"))")
    print("saturation: \(Self.setter(accessory, "saturation")), brightness: \(Self.setter(accessory, "brightness"))")

    // HAP-python goes away; a write made meanwhile arrives once it is back.
    try accessory.stop()
    try eventually("the plugin to notice; log:\n\(hub.log)") { hub.log.contains("lost Test Bridge") }
    try hub.send("house.plug.on", "true")
    try await accessory.startAgain()
    try await accessory.waitForSetter("switch", within: 120) { $0 == .bool(true) || $0 == .integer(1) }
    // Subscribed again: the contact sensor's event reaches the hub.
    try await accessory.send(["cmd": "contact", "value": 1])
    try eventually("the door's event after the restart: \(Self.recorded(probe))") {
      Self.recorded(probe).contains { $0["port"] == .string("door_open") && $0["value"] == .bool(true) }
    }
    try hub.stop()
  }
}
