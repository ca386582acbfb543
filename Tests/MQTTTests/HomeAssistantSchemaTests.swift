import MQTTMapping
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

  /// Every HA release since 2023.1 takes this light: before 2024.4 `color_mode: true` and
  /// `supported_color_modes` are one inclusion group (both or neither) and neither may be
  /// combined with the legacy flags `hs`, `color_temp`, `rgb`, `xy`; 2024.4 deprecates
  /// `color_mode` and 2025.3 drops it with a warning only.
  @Test func theLightTakesEveryReleaseSince2023() throws {
    let announcements = try Self.discovery(#"[{"name":"ceiling","title":"Ceiling","component":"light"}]"#)
      .announcements()
    #expect(announcements.map(\.topic) == ["homeassistant/light/patchbay_ab12cd34_mqtt/ceiling/config"])
    let light = Self.members(try #require(announcements.first).payload)
    let expected: [String: JSONValue] = [
      "name": .string("Ceiling"), "unique_id": .string("patchbay_ab12cd34_mqtt_ceiling"),
      "object_id": .string("patchbay_mqtt_ceiling"), "state_topic": .string("patchbay/mqtt/ha/ceiling/state"),
      "command_topic": .string("patchbay/mqtt/ha/ceiling/set"), "schema": .string("json"),
      "brightness": .bool(true), "brightness_scale": .integer(100), "color_mode": .bool(true),
      "supported_color_modes": .array([.string("hs"), .string("color_temp")]),
      "availability_topic": .string("patchbay/mqtt/status"), "payload_available": .string("online"),
      "payload_not_available": .string("offline"),
    ]
    for (key, value) in expected { #expect(light[key] == value, "\(key)") }
    #expect(Set(light.keys) == Set(expected.keys).union(["device", "origin"]))
    // The inclusion group of HA before 2024.4: both or neither.
    #expect((light["color_mode"] == nil) == (light["supported_color_modes"] == nil))
    for legacy in ["hs", "color_temp", "rgb", "xy", "white_value"] { #expect(light[legacy] == nil, "\(legacy)") }
    #expect(Self.members(light["device"] ?? .null)["identifiers"] == .array([.string("patchbay_ab12cd34_mqtt")]))
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
      "name", "unique_id", "object_id", "state_topic", "availability_topic", "payload_available",
      "payload_not_available", "device", "origin",
    ]
    let fields = announcements.map { Set(Self.members($0.payload).keys) }
    #expect(
      fields == [
        common.union(["command_topic", "payload_on", "payload_off", "state_on", "state_off"]),
        common.union(["device_class", "unit_of_measurement"]),
        common.union(["device_class", "payload_on", "payload_off"]),
      ])
  }
}
