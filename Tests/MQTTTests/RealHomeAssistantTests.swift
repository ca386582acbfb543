import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

/// The mqtt plugin against a real Home Assistant (`HomeAssistantUnderTest`: PyPI's
/// homeassistant, its MQTT integration on the test's mosquitto): what the hub announces shows
/// in HA's entity and device registries, HA's service calls reach the hub's ports, the hub's
/// values reach HA's states, and what leaves the config leaves HA. Every test ends with
/// `ha.stop()`, which fails on an ERROR or WARNING line of HA's log about the hub's payloads.
///
/// The core scenarios (registries to removal, the hub's triggers) run against every release
/// (2024.1.6 and 2025.4.4); the others against 2025.4.4 only, to keep the suite's time.
/// Entities are found by their `unique_id`'s ending, so a hub id in the ids does not matter.
@Suite(.serialized) struct RealHomeAssistantTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-real-ha") }

  /// The config of docs/plugins/mqtt.md's Home Assistant section, one entity of each kind.
  static func entities(withDoor: Bool = true, _ release: HomeAssistantUnderTest.Release) -> String {
    HubTOML().homeAssistant(["configuration_url": "http://127.0.0.1:8080/"])
      .raw(release.hubSettings)  // more keys of the same table
      .sampleEntities(withDoor: withDoor, described: true).toml
  }

  static func mqtt(port: Int, _ pairs: KeyValuePairs<String, HubTOML.Value> = [:]) -> String {
    HubTOML.mqttBroker(port: port, pairs).toml
  }

  /// HA's registry entry of the mqtt entity whose unique_id ends in `_NAME`.
  static func entity(_ name: String, in entities: [JSONValue]) -> JSONValue? {
    entities.first {
      $0["platform"]?.stringValue == "mqtt" && ($0["unique_id"]?.stringValue ?? "").hasSuffix("_" + name)
    }
  }

  /// The entity ids of registry entries or states, for messages.
  static func ids(_ entries: [JSONValue]) -> [String] { entries.compactMap { $0["entity_id"]?.stringValue } }

  /// The devices patchbay announced (manufacturer `patchbay`).
  static func patchbayDevices(_ devices: [JSONValue]) -> [JSONValue] {
    devices.filter { $0["manufacturer"]?.stringValue == "patchbay" }
  }

  /// Runs `patchbay reload` on `hub`'s config after `edit` rewrote it.
  static func reload(_ hub: MQTTHub, _ edit: (String) -> String) throws {
    let text = try String(contentsOfFile: hub.configPath, encoding: .utf8)
    let edited = edit(text)
    #expect(edited != text, "the edit changed nothing")
    try edited.write(toFile: hub.configPath, atomically: false, encoding: .utf8)
    let result = try runProgram(BuildProducts.executable("patchbay"), ["reload", "--config", hub.configPath])
    if result.status != 0 { throw TestSetupError("patchbay reload failed: \(result.output)") }
  }

  /// The whole way through: registries, states, service calls, removal on reload. (The one
  /// test to keep in every run: it pays for one HA start.)
  @Test(arguments: HomeAssistantUnderTest.releases)
  func registriesStatesServiceCallsAndRemoval(_ release: HomeAssistantUnderTest.Release) throws {
    let started = Date()
    let broker = try MosquittoBroker(directory: directory)
    let ha = try HomeAssistantUnderTest(directory: directory, release: release)
    try ha.addMQTT(port: broker.port)
    let hub = try MQTTHub(directory: directory, mqtt: Self.mqtt(port: broker.port) + Self.entities(release))
    try hub.waitConnected()

    // The registries: four entities and one device, every entity on it.
    var entities: [JSONValue] = []
    try ha.eventually("HA's entity registry to have the switch, light, sensor and door; it has: \(Self.ids(entities))")
    {
      entities = try ha.entities()
      return ["desk_lamp", "ceiling", "temperature", "door"].allSatisfy { Self.entity($0, in: entities) != nil }
    }
    let devices = Self.patchbayDevices(try ha.devices())
    try #require(devices.count == 1, "one patchbay device in HA: \(devices)")
    let device = devices[0]
    #expect(device["name"]?.stringValue == "Test hub")
    #expect(device["model"]?.stringValue == "mqtt plugin")
    #expect(device["configuration_url"]?.stringValue == "http://127.0.0.1:8080/", "\(device)")
    let deviceID = try #require(device["id"]?.stringValue)
    let lamp = try #require(Self.entity("desk_lamp", in: entities))
    let ceiling = try #require(Self.entity("ceiling", in: entities))
    let temperature = try #require(Self.entity("temperature", in: entities))
    let door = try #require(Self.entity("door", in: entities))
    for entry in [lamp, ceiling, temperature, door] {
      #expect(entry["device_id"]?.stringValue == deviceID, "\(entry)")
    }
    let lampID = try #require(lamp["entity_id"]?.stringValue)
    let ceilingID = try #require(ceiling["entity_id"]?.stringValue)
    let temperatureID = try #require(temperature["entity_id"]?.stringValue)
    let doorID = try #require(door["entity_id"]?.stringValue)
    #expect(lampID.hasPrefix("switch.") && ceilingID.hasPrefix("light."))
    #expect(temperatureID.hasPrefix("sensor.") && doorID.hasPrefix("binary_sensor."))
    #expect(temperature["entity_category"] == .string("diagnostic"), "\(temperature)")

    // The button's four device triggers, on the same device (what an automation offers).
    var triggers: [JSONValue] = []
    try ha.eventually("the button's device triggers; HA offers: \(triggers)") {
      triggers = try ha.deviceTriggers(deviceID).filter { $0["domain"]?.stringValue == "mqtt" }
      return triggers.count == 4
    }
    #expect(
      Set(triggers.compactMap { $0["type"]?.stringValue })
        == ["button_short_press", "button_double_press", "button_long_press", "button_short_release"])
    // The button's own name as subtype: several buttons stay apart in the automation editor.
    #expect(triggers.allSatisfy { $0["subtype"]?.stringValue == "bedside" }, "\(triggers)")
    // An automation on the double press fires when the hub's button is double-clicked.
    let double = try #require(triggers.first { $0["type"]?.stringValue == "button_double_press" })
    // The trigger as the automation editor saves it (the listing's other keys are not config).
    let trigger = ["platform", "domain", "device_id", "type", "subtype", "discovery_id"].compactMap { key in
      double[key].map { (key, $0.foundation) }
    }
    let fired = try ha.subscribe([
      "type": "subscribe_trigger", "trigger": Dictionary(trigger, uniquingKeysWith: { first, _ in first }),
    ])
    // HA subscribes to the action topic a moment after the trigger is attached (it batches
    // subscriptions) and a press is not retained: press until one arrives, as a user would.
    try ha.eventually("the double-press trigger to fire") {
      try hub.send("mqtt.ha.bedside.press", "double_click")
      return try !ha.events(fired).isEmpty
    }
    let firing = try #require(try ha.events(fired).first)
    #expect(firing["variables"]?["trigger"]?["payload"] == .string("double_click"), "\(firing)")

    // Hub values to HA's states.
    try hub.send("mqtt.ha.desk_lamp.state", "true")
    try hub.send("mqtt.ha.ceiling.state", #"{"on":true,"brightness":40,"color":{"hue":200,"saturation":50}}"#)
    try hub.send("mqtt.ha.temperature.state", "21.5")
    try hub.send("mqtt.ha.door.state", "true")
    var states: [String: JSONValue] = [:]
    func refresh() throws {
      states = [:]
      for state in try ha.states() {
        if let id = state["entity_id"]?.stringValue { states[id] = state }
      }
    }
    try ha.eventually("the hub's values in HA's states: \(states.mapValues { $0["state"]?.stringValue ?? "?" })") {
      try refresh()
      return states[lampID]?["state"] == .string("on") && states[ceilingID]?["state"] == .string("on")
        && states[temperatureID]?["state"] == .string("21.5") && states[doorID]?["state"] == .string("on")
    }
    let light = try #require(states[ceilingID]?["attributes"])
    #expect(light["color_mode"] == .string("hs"))
    #expect(light["hs_color"]?.arrayValue?.compactMap(\.doubleValue) == [200, 50], "\(light)")
    #expect(light["brightness"]?.doubleValue == 102, "40 % of 255: \(light)")
    #expect(Set(light["supported_color_modes"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ["hs", "color_temp"])
    let sensor = try #require(states[temperatureID]?["attributes"])
    #expect(sensor["state_class"] == .string("measurement"), "\(sensor)")
    #expect(sensor["unit_of_measurement"] == .string("°C") && sensor["device_class"] == .string("temperature"))
    #expect(sensor["icon"] == .string("mdi:thermometer"), "\(sensor)")
    #expect(states[doorID]?["attributes"]?["device_class"] == .string("door"))

    // HA's service calls to the hub's ports.
    let watch = try hub.watchReady(broker: broker)
    try ha.callService("switch", "turn_off", entityID: lampID)
    try ha.callService("light", "turn_on", entityID: ceilingID, data: ["hs_color": [30, 100], "brightness_pct": 60])
    try ha.eventually("the commands on the hub's ports; watch:\n\(watch.process.output)") {
      watch.values("mqtt.ha.desk_lamp.command") == [.bool(false)] && watch.values("mqtt.ha.ceiling.command").count == 1
    }
    let colour = try #require(watch.values("mqtt.ha.ceiling.command").first)
    #expect(colour["on"] == .bool(true) && colour["brightness"]?.doubleValue == 60, "\(colour)")
    #expect(colour["color"]?["hue"]?.doubleValue == 30 && colour["color"]?["saturation"]?.doubleValue == 100)
    // In kelvin, which both releases take (2025 deprecates the mired `color_temp`): 300 mired.
    try ha.callService("light", "turn_on", entityID: ceilingID, data: ["color_temp_kelvin": 3333])
    try ha.eventually("the colour temperature command; watch:\n\(watch.process.output)") {
      watch.values("mqtt.ha.ceiling.command").count == 2
    }
    let warm = watch.values("mqtt.ha.ceiling.command")[1]
    #expect(warm["color_temperature"]?.doubleValue == 300, "\(warm)")

    // The door leaves the config: a reload takes it out of HA (registry and states).
    try Self.reload(hub) {
      $0.replacingOccurrences(of: Self.entities(release), with: Self.entities(withDoor: false, release))
    }
    try ha.eventually("the door gone from HA's registry and states") {
      let now = try ha.entities()
      try refresh()
      return Self.entity("door", in: now) == nil && states[doorID] == nil && Self.entity("desk_lamp", in: now) != nil
    }
    print(
      "RealHomeAssistantTests.registriesStatesServiceCallsAndRemoval (\(release)): \(Int(Date().timeIntervalSince(started))) s"
    )
    try ha.stop()
  }

  /// Two hubs on one broker, both with an instance named `mqtt` and a `desk_lamp`: two
  /// devices and two switches in HA, and one hub going away leaves the other available.
  /// (Issue 33.2; fixed on branch `ha`.)
  @Test func twoHubsOnOneBrokerStayTwoDevices() throws {
    let broker = try MosquittoBroker(directory: directory)
    let ha = try HomeAssistantUnderTest(directory: directory, release: .ha2025)
    try ha.addMQTT(port: broker.port)
    let second = try TemporaryDirectory("patchbay-real-ha-cellar")
    func lamp(_ device: String) -> String {
      HubTOML().homeAssistant(deviceName: device).homeAssistantEntity("desk_lamp", "switch").toml
    }
    let attic = try MQTTHub(
      directory: directory,
      mqtt: Self.mqtt(port: broker.port, ["hub_name": "attic"]) + lamp("Attic"))
    var cellar: MQTTHub? = try MQTTHub(
      directory: second,
      mqtt: Self.mqtt(port: broker.port, ["hub_name": "cellar"]) + lamp("Cellar"))
    try attic.waitConnected()
    try cellar?.waitConnected()
    var devices: [JSONValue] = []
    var lamps: [JSONValue] = []
    try ha.eventually(
      "two patchbay devices, each with its desk lamp; devices: \(devices.compactMap { $0["name"]?.stringValue }); lamps: \(Self.ids(lamps))",
      within: 240
    ) {
      devices = Self.patchbayDevices(try ha.devices())
      lamps = try ha.entities().filter {
        $0["platform"]?.stringValue == "mqtt" && ($0["unique_id"]?.stringValue ?? "").hasSuffix("_desk_lamp")
      }
      return devices.count == 2 && lamps.count == 2 && Set(lamps.compactMap { $0["device_id"]?.stringValue }).count == 2
    }
    #expect(Set(devices.compactMap { $0["name"]?.stringValue }) == ["Attic", "Cellar"])
    let atticDevice = try #require(devices.first { $0["name"]?.stringValue == "Attic" }?["id"]?.stringValue)
    let atticLamp = try #require(lamps.first { $0["device_id"]?.stringValue == atticDevice }?["entity_id"]?.stringValue)
    let cellarLamp = try #require(
      lamps.first { $0["device_id"]?.stringValue != atticDevice }?["entity_id"]?.stringValue)
    try attic.send("mqtt.ha.desk_lamp.state", "true")
    try cellar?.send("mqtt.ha.desk_lamp.state", "false")
    try ha.eventually("each lamp with its own hub's state") {
      try ha.state(of: atticLamp)?["state"] == .string("on") && ha.state(of: cellarLamp)?["state"] == .string("off")
    }
    // The cellar hub stops: its last will makes its lamp unavailable, not the attic's.
    _ = try cellar?.process.terminate(within: 60)
    cellar = nil
    try ha.eventually("the cellar lamp unavailable") {
      try ha.state(of: cellarLamp)?["state"] == .string("unavailable")
    }
    #expect(try ha.state(of: atticLamp)?["state"] == .string("on"))
    try ha.stop()
  }

  /// A Flic button and a bulb on devices of their own, connected through the hub's device
  /// (`via_device`), and the bulb's own availability: false on its `available` port makes it
  /// unavailable in HA while the hub stays connected.
  @Test func devicesViaTheHubAndAnEntitysOwnAvailability() throws {
    let broker = try MosquittoBroker(directory: directory)
    let ha = try HomeAssistantUnderTest(directory: directory, release: .ha2025)
    try ha.addMQTT(port: broker.port)
    let hub = try MQTTHub(
      directory: directory,
      mqtt: HubTOML.mqttBroker(port: broker.port).homeAssistant()
        .homeAssistantDevice(
          "bedside", ["title": "Bedside button", "manufacturer": "Flic", "model": "Flic 2", "area": "Bedroom"]
        )
        .homeAssistantDevice("porch", ["title": "Porch bulb"])
        .homeAssistantEntity("bedside", "button", ["device": "bedside"])
        .homeAssistantEntity("porch_light", "switch", ["device": "porch", "available": true]))
    try hub.waitConnected()
    var devices: [JSONValue] = []
    try ha.eventually("three devices (hub, button, bulb); HA has: \(devices.compactMap { $0["name"]?.stringValue })") {
      devices = try ha.devices()
      return ["Test hub", "Bedside button", "Porch bulb"].allSatisfy { name in
        devices.contains { $0["name"]?.stringValue == name }
      }
    }
    func device(_ name: String) throws -> JSONValue { try #require(devices.first { $0["name"]?.stringValue == name }) }
    let hubDevice = try #require(try device("Test hub")["id"]?.stringValue)
    let button = try device("Bedside button")
    #expect(button["via_device_id"]?.stringValue == hubDevice, "\(button)")
    #expect(button["manufacturer"] == .string("Flic") && button["model"] == .string("Flic 2"), "\(button)")
    #expect(try device("Porch bulb")["via_device_id"]?.stringValue == hubDevice)
    let buttonID = try #require(button["id"]?.stringValue)
    var triggers: [JSONValue] = []
    try ha.eventually("the button's triggers on its own device: \(triggers)") {
      triggers = try ha.deviceTriggers(buttonID).filter { $0["domain"]?.stringValue == "mqtt" }
      return triggers.count == 4
    }

    // The hub's own triggers (connected, gone), registered first so the link above holds.
    #expect(try ha.deviceTriggers(hubDevice).filter { $0["domain"]?.stringValue == "mqtt" }.count == 2)

    // The bulb: unavailable until its own availability says online, then its state.
    var entities: [JSONValue] = []
    try ha.eventually("the bulb's switch and the hub's connection entity") {
      entities = try ha.entities()
      return Self.entity("porch_light", in: entities) != nil && Self.entity("hub_status", in: entities) != nil
    }
    let porch = try #require(Self.entity("porch_light", in: entities)?["entity_id"]?.stringValue)
    let hubStatus = try #require(Self.entity("hub_status", in: entities)?["entity_id"]?.stringValue)
    try ha.eventually("the hub's connection on") { try ha.state(of: hubStatus)?["state"] == .string("on") }
    try ha.eventually("the bulb unavailable before its own availability") {
      try ha.state(of: porch)?["state"] == .string("unavailable")
    }
    try hub.send("mqtt.ha.porch_light.available", "true")
    try hub.send("mqtt.ha.porch_light.state", "true")
    try ha.eventually("the bulb on: \(String(describing: try? ha.state(of: porch)))") {
      try ha.state(of: porch)?["state"] == .string("on")
    }
    try hub.send("mqtt.ha.porch_light.available", "false")
    try ha.eventually("the bulb unavailable again") { try ha.state(of: porch)?["state"] == .string("unavailable") }
    #expect(try ha.state(of: hubStatus)?["state"] == .string("on"), "the hub itself stays connected")
    try ha.stop()
  }

  /// Removing the whole `[home_assistant]` table takes what the hub announced out of HA, and
  /// so does removing the whole mqtt instance (its plugin's `retire`, run by the hub).
  @Test func removingTheTableOrTheInstanceClearsHomeAssistant() throws {
    let release = HomeAssistantUnderTest.Release.ha2025
    let broker = try MosquittoBroker(directory: directory)
    let ha = try HomeAssistantUnderTest(directory: directory, release: release)
    try ha.addMQTT(port: broker.port)
    let hub = try MQTTHub(directory: directory, mqtt: Self.mqtt(port: broker.port) + Self.entities(release))
    try hub.waitConnected()
    func announced() throws -> [JSONValue] {
      try ha.entities().filter { $0["platform"]?.stringValue == "mqtt" }
    }
    try ha.eventually("four mqtt entities in HA") { try announced().count == 4 }

    // Without the table.
    try Self.reload(hub) { $0.replacingOccurrences(of: Self.entities(release), with: "") }
    var left: [JSONValue] = []
    try ha.eventually("no mqtt entity left after the table went; left: \(Self.ids(left))") {
      left = try announced()
      return left.isEmpty
    }

    // The table back, then the whole instance gone from the config.
    try Self.reload(hub) { $0 + "\n" + Self.entities(release) }
    try ha.eventually("four mqtt entities in HA again") { try announced().count == 4 }
    try Self.reload(hub) { text in
      // Only the [hub] table stays.
      String(text[..<(text.range(of: "[instances.")?.lowerBound ?? text.endIndex)])
    }
    try ha.eventually("no mqtt entity left after the instance went; left: \(Self.ids(left))") {
      left = try announced()
      return left.isEmpty
    }
    #expect(hub.process.output.contains("retired removed instance mqtt (mqtt)"), "\(hub.process.output)")
    try ha.stop()
  }
}
