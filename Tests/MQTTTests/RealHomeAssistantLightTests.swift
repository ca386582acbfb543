import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

/// A JSON light against the Home Assistant releases whose schemas differ (issue 45): the
/// `color_mode` key that HA before 2024.4 needs and 2025.3 and later log as an error, and a
/// colour temperature HA 2025 sends outside the range the light announced.
@Suite(.serialized) struct RealHomeAssistantLightTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-real-ha-light") }

  /// The hub's device with a switch and a JSON light (`ceiling`, with `light`'s settings).
  static func light(_ light: KeyValuePairs<String, HubTOML.Value> = [:]) -> String {
    HubTOML().homeAssistant().homeAssistantEntity("desk_lamp", "switch").homeAssistantEntity("ceiling", "light", light)
      .toml
  }

  /// HA 2024.1.6 refuses a light announced without `color_mode: true` (what
  /// `legacy_color_mode = true` is for), and its log check catches the refusal. The switch
  /// announced after it shows that HA has read the light's config by then.
  @Test func homeAssistant2024NeedsTheLegacyColorMode() throws {
    let broker = try MosquittoBroker(directory: directory)
    let ha = try HomeAssistantUnderTest(directory: directory, release: .ha2024)
    try ha.addMQTT(port: broker.port)
    let hub = try MQTTHub(directory: directory, mqtt: RealHomeAssistantTests.mqtt(port: broker.port) + Self.light())
    try hub.waitConnected()
    try ha.eventually("HA to refuse the light without color_mode") {
      ha.process.output.contains("some but not all values in the same group of inclusion 'color_mode'")
    }
    try ha.eventually("the switch in HA's registry") {
      RealHomeAssistantTests.entity("desk_lamp", in: try ha.entities()) != nil
    }
    #expect(RealHomeAssistantTests.entity("ceiling", in: try ha.entities()) == nil)
    #expect(throws: HomeAssistantUnderTest.Failure.self) { try ha.stop() }
  }

  /// HA 2025.4.4 does not hold a colour temperature to the light's announced range: 6500 K to
  /// a 200-454 mired light arrives as 153 mired, which the hub clamps to 200 (it used to
  /// refuse it, and the light did nothing).
  @Test func aColourTemperatureBeyondTheRangeIsClamped() throws {
    let broker = try MosquittoBroker(directory: directory)
    let ha = try HomeAssistantUnderTest(directory: directory, release: .ha2025)
    try ha.addMQTT(port: broker.port)
    let hub = try MQTTHub(
      directory: directory,
      mqtt: RealHomeAssistantTests.mqtt(port: broker.port)
        + Self.light(["color_modes": ["color_temp"], "min_mireds": 200, "max_mireds": 454]))
    try hub.waitConnected()
    var ceiling = ""
    try ha.eventually("the light in HA's registry") {
      ceiling = RealHomeAssistantTests.entity("ceiling", in: try ha.entities())?["entity_id"]?.stringValue ?? ""
      return !ceiling.isEmpty
    }
    try hub.send("mqtt.ha.ceiling.state", #"{"on":true,"brightness":50,"color_temperature":300}"#)
    try ha.eventually("the light on in HA") { try ha.state(of: ceiling)?["state"] == .string("on") }
    let watch = try hub.watchReady(broker: broker)
    try ha.callService("light", "turn_on", entityID: ceiling, data: ["color_temp_kelvin": 6500])
    try ha.eventually("the command on the hub's port; watch:\n\(watch.process.output)\nhub:\n\(hub.process.output)") {
      !watch.values("mqtt.ha.ceiling.command").isEmpty
    }
    #expect(watch.values("mqtt.ha.ceiling.command").first?["color_temperature"]?.doubleValue == 200)
    #expect(hub.process.output.contains("outside ceiling's 200...454 mired; clamped to 200"), "\(hub.process.output)")
    try ha.stop()
  }
}
