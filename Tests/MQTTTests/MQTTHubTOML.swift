import PatchbayTestSupport

/// The mqtt instance's settings the suites share, as `HubTOML` blocks: the broker on this host
/// and Home Assistant's tables.
extension HubTOML {
  /// The instance's broker: mosquitto on this host at `port`, then `pairs` (base_topic, hub_name).
  static func mqttBroker(port: Int, _ pairs: KeyValuePairs<String, Value> = [:]) -> HubTOML {
    HubTOML().keys([("host", "127.0.0.1"), ("port", .integer(port))] + pairs.map { ($0.key, $0.value) })
  }

  /// One `[[instances.mqtt.topics]]`: a port `name` of `type` on the broker's topics.
  func topic(_ name: String, _ type: String, _ pairs: KeyValuePairs<String, Value> = [:]) -> HubTOML {
    arrayTable(
      "instances.mqtt.topics", [("name", .string(name)), ("type", .string(type))] + pairs.map { ($0.key, $0.value) })
  }

  /// One `[[instances.mqtt.import]]`: `port` as the hub `hub` shares it.
  func importing(_ port: Port, from hub: String) -> HubTOML {
    arrayTable(
      "instances.mqtt.import",
      [("hub", .string(hub)), ("port", .string(port.name)), ("type", .string(port.type))]
        + (port.kind.map { [("kind", .string($0))] } ?? []))
  }

  /// One `[[instances.mqtt.zigbee2mqtt]]`: the device `device` of `kind`.
  func zigbee2mqtt(_ device: String, kind: String, _ pairs: KeyValuePairs<String, Value> = [:]) -> HubTOML {
    arrayTable(
      "instances.mqtt.zigbee2mqtt",
      [("device", .string(device)), ("kind", .string(kind))] + pairs.map { ($0.key, $0.value) })
  }

  /// `[instances.mqtt.home_assistant]`: the hub's own device.
  func homeAssistant(deviceName: String = "Test hub", _ pairs: KeyValuePairs<String, Value> = [:]) -> HubTOML {
    table(
      "instances.mqtt.home_assistant", [("device_name", .string(deviceName))] + pairs.map { ($0.key, $0.value) })
  }

  /// One `[[instances.mqtt.home_assistant.entities]]`.
  func homeAssistantEntity(_ name: String, _ component: String, _ pairs: KeyValuePairs<String, Value> = [:])
    -> HubTOML
  {
    arrayTable(
      "instances.mqtt.home_assistant.entities",
      [("name", .string(name)), ("component", .string(component))] + pairs.map { ($0.key, $0.value) })
  }

  /// One `[[instances.mqtt.home_assistant.devices]]`.
  func homeAssistantDevice(_ name: String, _ pairs: KeyValuePairs<String, Value> = [:]) -> HubTOML {
    arrayTable("instances.mqtt.home_assistant.devices", [("name", .string(name))] + pairs.map { ($0.key, $0.value) })
  }

  /// docs/plugins/mqtt.md's entities, one of each kind: a switch, a light, a temperature
  /// sensor, a button and (`withDoor`) a door's binary sensor. `described` adds the titles and
  /// display keys whose way into Home Assistant's registries the real-HA suites check.
  func sampleEntities(withDoor: Bool = true, described: Bool = false) -> HubTOML {
    let sensor: [(String, Value)] =
      described
      ? [
        ("device_class", "temperature"), ("unit", "°C"), ("state_class", "measurement"), ("precision", 1),
        ("icon", "mdi:thermometer"), ("entity_category", "diagnostic"),
      ] : [("device_class", "temperature"), ("unit", "°C")]
    var config =
      self
      .homeAssistantEntity("desk_lamp", "switch", ["title": "Desk lamp"])
      .arrayTable(
        "instances.mqtt.home_assistant.entities",
        [("name", "ceiling"), ("component", "light")] + (described ? [("title", "Ceiling")] : [])
      )
      .arrayTable(
        "instances.mqtt.home_assistant.entities", [("name", "temperature"), ("component", "sensor")] + sensor
      )
      .homeAssistantEntity("bedside", "button")
    if withDoor { config = config.homeAssistantEntity("door", "binary_sensor", ["device_class": "door"]) }
    return config
  }
}

extension MQTTHub {
  /// A hub whose mqtt instance has `mqtt` for its settings.
  convenience init(directory: TemporaryDirectory, name: String = "mqtt", mqtt: HubTOML, extra: HubTOML = HubTOML())
    throws
  {
    try self.init(directory: directory, name: name, mqtt: mqtt.toml, extra: extra.toml)
  }
}
