import MQTTProtocol
import PatchbayPluginKit
import PatchbayValues
import Testing

/// The discovery configs field by field, pinned against HA's documented schema history, so a
/// change that one HA release would refuse shows here (the end-to-end test sees them on a
/// real broker; no HA runs in CI).
struct HomeAssistantSchemaTests {
  static func discovery(_ entities: String) throws -> HomeAssistantDiscovery {
    let config = try MQTTConfig(json: #"{"host":"h","home_assistant":{"entities":\#(entities)}}"#)
    let settings = try #require(config.homeAssistant)
    return HomeAssistantDiscovery(
      settings: settings, instance: "mqtt", hubID: "ab12cd34", baseTopic: "patchbay/mqtt", version: "9.9")
  }

  static func members(_ value: JSONValue) -> [String: JSONValue] {
    guard case .object(let members) = value else { return [:] }
    return Dictionary(members, uniquingKeysWith: { first, _ in first })
  }

  /// Today's JSON light: `supported_color_modes` without `color_mode`, which HA 2025.3 and
  /// later log as an ERROR at every discovery (issue 45.1). No legacy flags `hs`,
  /// `color_temp`, `rgb`, `xy` either (2025.3 removed them).
  @Test func theLightHasTodaysSchema() throws {
    let announcements = try Self.discovery(#"[{"name":"ceiling","title":"Ceiling","component":"light"}]"#)
      .announcements()
    #expect(announcements.map(\.topic) == ["homeassistant/light/patchbay_ab12cd34_mqtt/ceiling/config"])
    let light = Self.members(try #require(announcements.first).payload)
    let expected: [String: JSONValue] = [
      "name": .string("Ceiling"), "unique_id": .string("patchbay_ab12cd34_mqtt_ceiling"),
      "object_id": .string("patchbay_mqtt_ceiling"), "default_entity_id": .string("light.patchbay_mqtt_ceiling"),
      "state_topic": .string("patchbay/mqtt/ha/ceiling/state"), "qos": .integer(1),
      "min_mireds": .integer(153), "max_mireds": .integer(500),
      "command_topic": .string("patchbay/mqtt/ha/ceiling/set"), "schema": .string("json"),
      "brightness": .bool(true), "brightness_scale": .integer(100),
      "supported_color_modes": .array([.string("hs"), .string("color_temp")]),
      "availability_topic": .string("patchbay/mqtt/status"), "payload_available": .string("online"),
      "payload_not_available": .string("offline"),
    ]
    for (key, value) in expected { #expect(light[key] == value, "\(key)") }
    #expect(Set(light.keys) == Set(expected.keys).union(["device", "origin"]))
    #expect(light["color_mode"] == nil)
    for legacy in ["hs", "color_temp", "rgb", "xy", "white_value"] { #expect(light[legacy] == nil, "\(legacy)") }
    #expect(Self.members(light["device"] ?? .null)["identifiers"] == .array([.string("patchbay_ab12cd34_mqtt")]))
  }

  /// `legacy_color_mode = true`, for HA before 2024.4: there `color_mode: true` and
  /// `supported_color_modes` are one inclusion group (both or neither), and HA 2024.1.6
  /// refuses the light without it (RealHomeAssistantTests runs 2024.1.6 with the option).
  @Test func theLegacyColorModeOptionAddsTheKey() throws {
    let config = try MQTTConfig(
      json: #"{"host":"h","home_assistant":{"legacy_color_mode":true,"entities":[{"name":"c","component":"light"}]}}"#)
    let discovery = HomeAssistantDiscovery(
      settings: try #require(config.homeAssistant), instance: "mqtt", hubID: "ab12cd34", baseTopic: "patchbay/mqtt",
      version: "9.9")
    let light = Self.members(try #require(discovery.announcements().first).payload)
    #expect(light["color_mode"] == .bool(true))
    #expect(light["supported_color_modes"] == .array([.string("hs"), .string("color_temp")]))
    #expect(throws: (any Error).self) {
      try MQTTConfig(json: #"{"host":"h","home_assistant":{"legacy_color_mode":"yes"}}"#)
    }
  }

  @Test func theSwitchSensorAndBinarySensorFields() throws {
    let announcements = try Self.discovery(
      #"""
      [{"name":"lamp","component":"switch"},
       {"name":"temp","component":"sensor","device_class":"temperature","unit":"°C"},
       {"name":"door","component":"binary_sensor","device_class":"door"}]
      """#
    ).announcements()
    let common: Set<String> = [
      "name", "unique_id", "object_id", "default_entity_id", "state_topic", "availability_topic", "payload_available",
      "payload_not_available", "device", "origin",
    ]
    let fields = announcements.map { Set(Self.members($0.payload).keys) }
    #expect(
      fields == [
        common.union(["command_topic", "qos", "payload_on", "payload_off", "state_on", "state_off"]),
        common.union(["device_class", "unit_of_measurement"]),
        common.union(["device_class", "payload_on", "payload_off"]),
      ])
  }

  /// Item 5's fields: what each entity announces when the config gives it, and per-light modes.
  @Test func presentationFieldsAndPerLightModes() throws {
    let discovery = try Self.discovery(
      #"""
      [{"name":"temp","component":"sensor","device_class":"temperature","unit":"°C","state_class":"measurement",
        "precision":1,"expire_after":600,"icon":"mdi:thermometer","entity_category":"diagnostic"},
       {"name":"dimmer","component":"light","color_modes":["brightness"],"optimistic":true},
       {"name":"warm","component":"light","color_modes":["color_temp"],"min_mireds":250,"max_mireds":454},
       {"name":"left","component":"button"},{"name":"right","component":"button"}]
      """#)
    let payloads = discovery.announcements().map { Self.members($0.payload) }
    let temp = try #require(payloads.first)
    #expect(temp["suggested_display_precision"] == .integer(1))
    #expect(temp["expire_after"] == .integer(600))
    #expect(temp["icon"] == .string("mdi:thermometer"))
    #expect(temp["entity_category"] == .string("diagnostic"))
    #expect(temp["state_class"] == .string("measurement"))
    #expect(temp["qos"] == nil)
    let dimmer = payloads[1]
    #expect(dimmer["supported_color_modes"] == .array([.string("brightness")]))
    #expect(dimmer["min_mireds"] == nil)
    #expect(dimmer["optimistic"] == .bool(true))
    let warm = payloads[2]
    #expect(warm["supported_color_modes"] == .array([.string("color_temp")]))
    #expect(warm["min_mireds"] == .integer(250))
    #expect(warm["max_mireds"] == .integer(454))
    // Two buttons, two subtypes (their names), so HA's automation editor tells them apart.
    let subtypes = Set(payloads.dropFirst(3).compactMap { $0["subtype"]?.stringValue })
    #expect(subtypes == ["left", "right"])

    // A dimmable-only light reports no colour; a colour-temperature light stays in its range.
    let entities = discovery.settings.entities
    let colourful = LightCommand(on: true, brightness: 40, color: HSBColor(hue: 120, saturation: 50, brightness: 40))
    #expect(discovery.statePublish(.light(colourful), for: entities[1])?.payload == #"{"state":"ON","brightness":40}"#)
    let cold = LightCommand(colorTemperature: 100)
    #expect(
      discovery.statePublish(.light(cold), for: entities[2])?.payload
        == #"{"color_mode":"color_temp","color_temp":250}"#)
    // HA's command outside the light's own range is clamped into it and noted (issue 45.3:
    // HA 2025.4 sends 6500 K, 153 mired, to a 200-454 mired light); a non-number is refused.
    var notes: [String] = []
    let warmest = try discovery.command(Array(#"{"color_temp":500}"#.utf8), for: entities[2]) { notes.append($0) }
    #expect(warmest == .light(LightCommand(colorTemperature: 454)))
    let coldest = try discovery.command(Array(#"{"color_temp":153}"#.utf8), for: entities[2]) { notes.append($0) }
    #expect(coldest == .light(LightCommand(colorTemperature: 250)))
    #expect(
      notes == [
        "color_temp 500 is outside warm's 250...454 mired; clamped to 454",
        "color_temp 153 is outside warm's 250...454 mired; clamped to 250",
      ])
    let within = try discovery.command(Array(#"{"color_temp":300}"#.utf8), for: entities[2]) { notes.append($0) }
    #expect(within == .light(LightCommand(colorTemperature: 300)) && notes.count == 2)
    #expect(throws: PayloadError.self) {
      try discovery.command(Array(#"{"color_temp":"cold"}"#.utf8), for: entities[2])
    }
  }

  @Test func theDeviceCarriesAreaAndDashboardLink() throws {
    let config = try MQTTConfig(
      json: #"""
        {"host":"h","home_assistant":{"area":"Bedroom","configuration_url":"http://hub.local:8080/",
         "entities":[{"name":"lamp","component":"switch"}]}}
        """#)
    let discovery = HomeAssistantDiscovery(
      settings: try #require(config.homeAssistant), instance: "mqtt", hubID: "ab12cd34", baseTopic: "patchbay/mqtt",
      version: "9.9")
    let device = Self.members(Self.members(try #require(discovery.announcements().first).payload)["device"] ?? .null)
    #expect(device["suggested_area"] == .string("Bedroom"))
    #expect(device["configuration_url"] == .string("http://hub.local:8080/"))
    #expect(device["sw_version"] == .string("9.9"))
  }

  /// HA shows at most 255 characters: a longer text is cut there, not sent whole (HA would
  /// make the entity `unknown`).
  @Test func longTextIsCutAtHomeAssistantsLimit() throws {
    let discovery = try Self.discovery(#"[{"name":"note","component":"sensor","type":"text"}]"#)
    let sent = discovery.statePublish(.text(String(repeating: "é", count: 300)), for: discovery.settings.entities[0])
    #expect(sent?.payload.count == 255)
  }

  /// What `patchbay check` says of each new key's mistakes: the key and what would be right.
  @Test func mistakesInTheNewKeysNameTheKey() {
    let cases: [(String, String)] = [
      (#"{"name":"t","component":"sensor","precision":12}"#, "precision"),
      (#"{"name":"t","component":"switch","precision":1}"#, "precision"),
      (#"{"name":"t","component":"sensor","expire_after":0}"#, "expire_after"),
      (#"{"name":"t","component":"switch","icon":"lamp"}"#, "mdi:"),
      (#"{"name":"t","component":"sensor","entity_category":"config"}"#, "entity_category"),
      (#"{"name":"t","component":"light","color_modes":["hs","brightness"]}"#, "color_modes"),
      (#"{"name":"t","component":"light","min_mireds":600,"max_mireds":500}"#, "min_mireds"),
      (#"{"name":"t","component":"light","color_modes":["hs"],"max_mireds":400}"#, "color_temp"),
      (#"{"name":"t","component":"sensor","optimistic":true}"#, "optimistic"),
    ]
    for (entity, expected) in cases {
      #expect(throws: (any Error).self, "\(entity)") {
        _ = try MQTTConfig(json: #"{"host":"h","home_assistant":{"entities":["# + entity + "]}}")
      }
      do {
        _ = try MQTTConfig(json: #"{"host":"h","home_assistant":{"entities":["# + entity + "]}}")
      } catch {
        #expect("\(error)".contains(expected), "\(entity): \(error)")
      }
    }
    #expect(throws: (any Error).self) {
      _ = try MQTTConfig(json: #"{"host":"h","home_assistant":{"configuration_url":"hub:8080","entities":[]}}"#)
    }
  }
}

/// Devices of their own (via the hub's) and an entity's own availability.
struct HomeAssistantDevicesSchemaTests {
  static func discovery(_ table: String) throws -> HomeAssistantDiscovery {
    let config = try MQTTConfig(json: #"{"host":"h","home_assistant":\#(table)}"#)
    return HomeAssistantDiscovery(
      settings: try #require(config.homeAssistant), instance: "mqtt", hubID: "ab12cd34", baseTopic: "patchbay/mqtt",
      version: "9.9")
  }

  @Test func aButtonOnADeviceOfItsOwnViaTheHub() throws {
    let discovery = try Self.discovery(
      #"""
      {"area": "House", "devices": [{"name": "bedside", "title": "Bedside button", "manufacturer": "Flic",
        "model": "Flic 2", "area": "Bedroom"}, {"name": "porch"}],
       "entities": [{"name": "bedside", "component": "button", "device": "bedside"},
        {"name": "porch_light", "component": "switch", "device": "porch", "available": true},
        {"name": "temp", "component": "sensor"}]}
      """#)
    let announcements = discovery.announcements()
    // The hub's device first (HA links via_device only to a device it has), then its own
    // entities, then the other devices'.
    #expect(
      announcements.map(\.topic).prefix(5) == [
        "homeassistant/device_automation/patchbay_ab12cd34_mqtt/hub_status_online/config",
        "homeassistant/device_automation/patchbay_ab12cd34_mqtt/hub_status_offline/config",
        "homeassistant/binary_sensor/patchbay_ab12cd34_mqtt/hub_status/config",
        "homeassistant/sensor/patchbay_ab12cd34_mqtt/temp/config",
        "homeassistant/device_automation/patchbay_ab12cd34_mqtt/bedside_click/config",
      ])
    let trigger = HomeAssistantSchemaTests.members(
      try #require(announcements.first { $0.topic.contains("bedside_click") }).payload)
    let device = HomeAssistantSchemaTests.members(trigger["device"] ?? .null)
    #expect(
      device == [
        "identifiers": .array([.string("patchbay_ab12cd34_mqtt_bedside")]), "name": .string("Bedside button"),
        "manufacturer": .string("Flic"), "model": .string("Flic 2"), "suggested_area": .string("Bedroom"),
        "via_device": .string("patchbay_ab12cd34_mqtt"),
      ])
    let porch = HomeAssistantSchemaTests.members(
      try #require(announcements.first { $0.topic.hasPrefix("homeassistant/switch/") }).payload)
    let porchDevice = HomeAssistantSchemaTests.members(porch["device"] ?? .null)
    #expect(porchDevice["suggested_area"] == .string("House") && porchDevice["manufacturer"] == .string("patchbay"))
    // Its own availability beside the hub's: the list form, both must be online.
    #expect(porch["availability_topic"] == nil && porch["availability_mode"] == .string("all"))
    #expect(
      porch["availability"]?.arrayValue?.compactMap { $0["topic"]?.stringValue } == [
        "patchbay/mqtt/status", "patchbay/mqtt/ha/porch_light/available",
      ])
    #expect(discovery.retainedStateTopics().contains("patchbay/mqtt/ha/porch_light/available"))
    #expect(
      discovery.availabilityPublish(false, for: discovery.settings.entities[1]) == (
        "patchbay/mqtt/ha/porch_light/available", "offline"
      ))
    // The hub's own device keeps the sensor, and gets its connection entity (via_device's target).
    let temp = HomeAssistantSchemaTests.members(
      try #require(announcements.first { $0.topic.hasPrefix("homeassistant/sensor/") }).payload)
    #expect(HomeAssistantSchemaTests.members(temp["device"] ?? .null)["via_device"] == nil)
    let hub = HomeAssistantSchemaTests.members(
      try #require(
        announcements.first { $0.topic == "homeassistant/binary_sensor/patchbay_ab12cd34_mqtt/hub_status/config" }
      )
      .payload)
    #expect(hub["state_topic"] == .string("patchbay/mqtt/status") && hub["device_class"] == .string("connectivity"))
    // The hub's triggers listen on the event topic, not on the retained status (issue 45.2).
    let hubTriggers = announcements.prefix(2).map { HomeAssistantSchemaTests.members($0.payload) }
    #expect(hubTriggers.map { $0["topic"] } == [.string("patchbay/mqtt/event"), .string("patchbay/mqtt/event")])
    #expect(hubTriggers.map { $0["payload"] } == [.string("online"), .string("offline")])
    #expect(
      HomeAssistantSchemaTests.members(hub["device"] ?? .null)["identifiers"]
        == .array([.string("patchbay_ab12cd34_mqtt")]))
  }

  @Test func deviceMistakesNameTheirKey() throws {
    #expect {
      _ = try Self.discovery(
        #"{"devices":[{"name":"bedside"}],"entities":[{"name":"b","component":"button","device":"bedsde"}]}"#)
    } throws: {
      "\($0)".contains(
        "home_assistant.entities.0.device 'bedsde' is not a device of [[home_assistant.devices]] (did you mean 'bedside'?)"
      )
    }
    #expect {
      _ = try Self.discovery(#"{"entities":[{"name":"b","component":"button","available":true}]}"#)
    } throws: { "\($0)".contains("available a button's triggers have no availability") }
    #expect {
      _ = try Self.discovery(#"{"devices":[{"name":"x"},{"name":"x"}]}"#)
    } throws: { "\($0)".contains("devices.1.name 'x' is used twice") }
  }
}
