import PatchbayPluginKit

/// `[share]`: this hub's ports published for other hubs.
public struct ShareSettings: Sendable, Equatable, Decodable {
  public var ports: [SharedPort]

  enum Keys: String, CodingKey, CaseIterable {
    case ports
  }

  public init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    ports = try decoder.container(keyedBy: Keys.self).decode([SharedPort].self, forKey: .ports)
  }
}
