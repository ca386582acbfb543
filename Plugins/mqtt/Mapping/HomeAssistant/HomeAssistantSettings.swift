import PatchbayPluginKit

/// `[home_assistant]`: MQTT discovery of the listed entities.
public struct HomeAssistantSettings: Sendable, Equatable, Decodable {
  public var discoveryPrefix: String
  public var deviceName: String?
  public var entities: [HomeAssistantEntity]

  enum Keys: String, CodingKey, CaseIterable {
    case discoveryPrefix = "discovery_prefix"
    case deviceName = "device_name"
    case entities
  }

  public init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    discoveryPrefix = try table.decodeIfPresent(String.self, forKey: .discoveryPrefix) ?? "homeassistant"
    if let problem = TopicFilter.problemAsTopicName(discoveryPrefix) {
      throw decoder.mistake("discovery_prefix", problem)
    }
    deviceName = try table.decodeIfPresent(String.self, forKey: .deviceName)
    entities = try table.decodeIfPresent([HomeAssistantEntity].self, forKey: .entities) ?? []
    var names: Set<String> = []
    for (index, entity) in entities.enumerated() where !names.insert(entity.name).inserted {
      throw decoder.mistake("entities.\(index).name", "'\(entity.name)' is used twice")
    }
  }
}
