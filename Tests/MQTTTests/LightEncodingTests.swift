import MQTTProtocol
import PatchbayPluginKit
import Testing

/// Hub light values of any size become payloads a device or Home Assistant can read; none
/// traps converting a huge or non-finite number to an integer (the fuzzer found the Zigbee2MQTT
/// report side; these are the same conversions in the other direction).
struct LightEncodingTests {
  static let extremes: [Double] = [1e20, -1e20, .infinity, -.infinity, .nan, 1e308]

  @Test func zigbeeSetPayloadsClampEveryNumber() {
    for number in Self.extremes {
      let payload = Zigbee2MQTTLight.setPayload(LightCommand(brightness: number, colorTemperature: number))
      #expect(JSONValue.parse(payload.description) != nil, "\(number): \(payload)")
    }
    #expect(Zigbee2MQTTLight.setPayload(LightCommand(brightness: 1e20)).description == #"{"brightness":254}"#)
    #expect(Zigbee2MQTTLight.setPayload(LightCommand(brightness: -1e20)).description == #"{"brightness":0}"#)
    #expect(Zigbee2MQTTLight.setPayload(LightCommand(colorTemperature: 1e20)).description == #"{"color_temp":1000}"#)
  }

  @Test func homeAssistantLightStatesClampEveryNumber() throws {
    let config = try MQTTConfig(
      json: #"{"host":"h","home_assistant":{"entities":[{"name":"desk","component":"light"}]}}"#)
    let settings = try #require(config.homeAssistant)
    let discovery = HomeAssistantDiscovery(
      settings: settings, instance: "mqtt", hubID: "ab12cd34", baseTopic: "patchbay/mqtt", version: "1")
    let entity = settings.entities[0]
    for number in Self.extremes {
      let state = discovery.statePublish(
        .light(LightCommand(brightness: number, colorTemperature: number)), for: entity)
      #expect(state.flatMap { JSONValue.parse($0.payload) } != nil, "\(number): \(String(describing: state))")
    }
    let huge = discovery.statePublish(
      .light(LightCommand(on: true, brightness: 1e20, colorTemperature: 1e20)), for: entity)
    // Clamped to the mired range the light announced (HA's default 153...500), never beyond it.
    #expect(huge?.payload == #"{"state":"ON","brightness":100,"color_mode":"color_temp","color_temp":500}"#)
  }
}
