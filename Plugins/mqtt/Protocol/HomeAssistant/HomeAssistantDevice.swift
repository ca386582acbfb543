import PatchbayPluginKit

/// A device of its own in Home Assistant for some of the entities (a Flic button, a bulb the
/// hub bridges), shown as connected through the hub's device (`via_device`).
///
/// ```toml
/// [[instances.mqtt.home_assistant.devices]]
/// name = "bedside"            # what entities name in `device`
/// title = "Bedside button"    # shown in HA (default: name)
/// manufacturer = "Flic"       # default: patchbay
/// model = "Flic 2"            # optional
/// area = "Bedroom"            # suggested_area (default: the table's area)
/// ```
public struct HomeAssistantDevice: Sendable, Equatable, Decodable {
  public var name: String
  public var title: String
  public var manufacturer: String
  public var model: String?
  public var area: String?

  enum Keys: String, CodingKey, CaseIterable {
    case name, title, manufacturer, model, area
  }

  public init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    name = try table.decode(String.self, forKey: .name)
    guard HomeAssistantEntity.isIDPart(name) else {
      throw decoder.mistake("name", "'\(name)' must be 1 to 48 of a-z, 0-9 and _ (it is part of the device's id)")
    }
    title = try table.decodeIfPresent(String.self, forKey: .title) ?? name
    manufacturer = try table.decodeIfPresent(String.self, forKey: .manufacturer) ?? "patchbay"
    model = try table.decodeIfPresent(String.self, forKey: .model)
    area = try table.decodeIfPresent(String.self, forKey: .area)
  }
}
