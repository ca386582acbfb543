import PatchbayPluginKit

/// The mqtt instance's config: the broker, then what is mapped to ports. Every mistake is a
/// create error naming its key, so `patchbay check` reports it. See docs/plugins/mqtt.md.
public struct MQTTConfig: Sendable, Equatable {
  public var broker = BrokerSettings()
  public var topics: [TopicMapping] = []
  public var zigbee2mqttBaseTopic = "zigbee2mqtt"
  public var zigbee2mqtt: [Zigbee2MQTTDevice] = []
  public var homeAssistant: HomeAssistantSettings?
  /// This hub's name in shared topics.
  public var hubName: String?
  public var sharePrefix = "patchbay"
  public var share: ShareSettings?
  public var imports: [ImportedPort] = []

  /// Reads the config JSON the hub hands the plugin.
  public init(json: String) throws {
    self = try PluginContext.decodeConfig(Self.self, json: json)
  }

  /// Every port the config declares (the `connected` output included), for uniqueness checks.
  var portNames: [String] {
    var names = ["connected"]
    for mapping in topics {
      names += mapping.outputPortNames
      if let input = mapping.inputPortName { names.append(input) }
    }
    for device in zigbee2mqtt {
      names +=
        device.kind == .light
        ? [device.lightInput, device.stateOutput] : [device.actionOutput, device.actionTextOutput]
    }
    for entity in homeAssistant?.entities ?? [] {
      names.append(entity.statePort)
      if let command = entity.commandPort { names.append(command) }
    }
    names += (share?.ports ?? []).map(\.portName)
    names += imports.map(\.portName)
    return names
  }

}

extension MQTTConfig: Decodable {
  enum Keys: String, CodingKey, CaseIterable {
    case host, port
    case protocolVersion = "protocol"
    case clientID = "client_id"
    case keepalive = "keepalive_s"
    case baseTopic = "base_topic"
    case username
    case passwordFile = "password_file"
    case cleanSession = "clean_session"
    case tls
    case maxPayloadBytes = "max_payload_bytes"
    case retryInitial = "retry_initial_s"
    case retryMax = "retry_max_s"
    case topics
    case zigbee2mqttBaseTopic = "zigbee2mqtt_base_topic"
    case zigbee2mqtt
    case homeAssistant = "home_assistant"
    case hubName = "hub_name"
    case sharePrefix = "share_prefix"
    case share
    case imports = "import"
  }

  public init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    var broker = BrokerSettings()
    broker.host = try table.decode(String.self, forKey: .host)
    if broker.host.isEmpty || broker.host.contains("/") || broker.host.contains(" ") {
      throw decoder.mistake("host", "'\(broker.host)' must be a host name or address (no scheme, no path)")
    }
    broker.tls = try table.decodeIfPresent(BrokerSettings.TLS.self, forKey: .tls)
    broker.port = try table.decodeIfPresent(Int.self, forKey: .port) ?? (broker.tls == nil ? 1883 : 8883)
    guard (1...65535).contains(broker.port) else { throw decoder.mistake("port", "must be 1...65535") }
    let version = try table.decodeIfPresent(String.self, forKey: .protocolVersion) ?? "3.1.1"
    guard let protocolVersion = BrokerSettings.ProtocolVersion(rawValue: version) else {
      throw decoder.mistake("protocol", "'\(version)' must be \"3.1.1\" or \"5\"")
    }
    broker.protocolVersion = protocolVersion
    broker.clientID = try table.decodeIfPresent(String.self, forKey: .clientID)
    if let id = broker.clientID, id.isEmpty || id.utf8.count > 65535 {
      throw decoder.mistake("client_id", "must not be empty")
    }
    broker.keepaliveSeconds = try table.decodeIfPresent(Int.self, forKey: .keepalive) ?? 30
    guard (5...65535).contains(broker.keepaliveSeconds) else {
      throw decoder.mistake("keepalive_s", "must be 5...65535")
    }
    broker.baseTopic = try table.decodeIfPresent(String.self, forKey: .baseTopic)
    if let base = broker.baseTopic, let problem = TopicFilter.problemAsTopicName(base) {
      throw decoder.mistake("base_topic", problem)
    }
    broker.username = try table.decodeIfPresent(String.self, forKey: .username)
    broker.passwordFile = try table.decodeIfPresent(String.self, forKey: .passwordFile)
    if broker.passwordFile != nil && broker.username == nil {
      throw decoder.mistake("password_file", "needs username")
    }
    let cleanSession = try table.decodeIfPresent(Bool.self, forKey: .cleanSession)
    broker.maxPayloadBytes = try table.decodeIfPresent(Int.self, forKey: .maxPayloadBytes) ?? broker.maxPayloadBytes
    guard (16...(16 * 1024 * 1024)).contains(broker.maxPayloadBytes) else {
      throw decoder.mistake("max_payload_bytes", "must be 16...16777216")
    }
    broker.retryInitialSeconds = try table.decodeIfPresent(Double.self, forKey: .retryInitial) ?? 0.5
    broker.retryMaxSeconds = try table.decodeIfPresent(Double.self, forKey: .retryMax) ?? 30
    guard (0.05...60).contains(broker.retryInitialSeconds) else {
      throw decoder.mistake("retry_initial_s", "must be 0.05...60")
    }
    guard (broker.retryInitialSeconds...3600).contains(broker.retryMaxSeconds) else {
      throw decoder.mistake("retry_max_s", "must be retry_initial_s...3600")
    }
    hubName = try table.decodeIfPresent(String.self, forKey: .hubName)
    if let hubName { _ = try HubName.check(hubName, key: "hub_name", in: decoder) }
    sharePrefix = try table.decodeIfPresent(String.self, forKey: .sharePrefix) ?? "patchbay"
    if let problem = TopicFilter.problemAsTopicName(sharePrefix) { throw decoder.mistake("share_prefix", problem) }
    share = try table.decodeIfPresent(ShareSettings.self, forKey: .share)
    if share != nil && hubName == nil {
      throw decoder.mistake("share", "needs hub_name (this hub's name in the shared topics)")
    }
    imports = try table.decodeIfPresent([ImportedPort].self, forKey: .imports) ?? []
    // Imports want a persistent session (events sent while this hub is away wait at the broker).
    broker.cleanSession = cleanSession ?? imports.isEmpty
    if !broker.cleanSession && broker.clientID == nil && hubName == nil {
      throw decoder.mistake(
        "client_id",
        "(or hub_name) is needed for a persistent session: it must be the same on every start and unique on the broker")
    }
    self.broker = broker
    topics = try table.decodeIfPresent([TopicMapping].self, forKey: .topics) ?? []
    zigbee2mqttBaseTopic = try table.decodeIfPresent(String.self, forKey: .zigbee2mqttBaseTopic) ?? "zigbee2mqtt"
    if let problem = TopicFilter.problemAsTopicName(zigbee2mqttBaseTopic) {
      throw decoder.mistake("zigbee2mqtt_base_topic", problem)
    }
    zigbee2mqtt = try table.decodeIfPresent([Zigbee2MQTTDevice].self, forKey: .zigbee2mqtt) ?? []
    homeAssistant = try table.decodeIfPresent(HomeAssistantSettings.self, forKey: .homeAssistant)

    var seen: Set<String> = []
    for name in portNames where !seen.insert(name).inserted {
      throw PluginError.config(
        "port '\(name)' is declared twice (check topics.*.name, zigbee2mqtt.*.name and home_assistant.entities.*.name)")
    }
  }
}
