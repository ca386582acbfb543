import PatchbayPluginKit

/// One `[[import]]`: another hub's shared port as an output port here.
public struct ImportedPort: Sendable, Equatable {
  public var hub: String
  public var instance: String
  public var port: String
  public var type: ValueType
  public var kind: PortKind
  public var portName: String

  public func topic(prefix: String) -> String { TopicFilter.join(prefix, "\(hub)/\(instance)/\(port)") }
}

extension ImportedPort: Decodable {
  enum Keys: String, CodingKey, CaseIterable {
    case hub, instance, port, type, kind, name
  }

  public init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    hub = try HubName.check(table.decode(String.self, forKey: .hub), key: "hub", in: decoder)
    instance = try HubName.check(
      table.decodeIfPresent(String.self, forKey: .instance) ?? "mqtt", key: "instance", in: decoder)
    port = try PortName.check(table.decode(String.self, forKey: .port), key: "port", in: decoder)
    type = try TopicMapping.valueType(table.decode(String.self, forKey: .type), in: decoder)
    kind = try TopicMapping.portKind(table.decodeIfPresent(String.self, forKey: .kind), type: type, in: decoder)
    let given = try table.decodeIfPresent(String.self, forKey: .name)
    portName = try PortName.check("import." + (given ?? "\(hub).\(port)"), key: "name", in: decoder)
  }
}
