import PatchbayPluginKit

/// A port shared with other patchbay hubs through the broker (`[share] ports`), or one
/// imported from another hub (`[[import]]`). Topic: `PREFIX/HUB/INSTANCE/PORT`.
///
/// ```toml
/// hub_name = "attic"                     # this hub's name in shared topics (and client id)
/// [instances.mqtt.share]
/// ports = [{ name = "button", type = "button", kind = "event" }]   # input ports share.button
///
/// [[instances.mqtt.import]]
/// hub = "bedroom"                        # the other hub's hub_name
/// instance = "mqtt"                      # its mqtt instance (default "mqtt")
/// port = "button"                        # the port it shares
/// type = "button"
/// kind = "event"
/// name = "bedroom_button"                # output port import.bedroom_button (default import.HUB.PORT)
/// ```
public struct SharedPort: Sendable, Equatable {
  public var name: String
  public var type: ValueType
  public var kind: PortKind
  public var portName: String { "share.\(name)" }

  public func topic(prefix: String, hub: String, instance: String) -> String {
    TopicFilter.join(prefix, "\(hub)/\(instance)/\(name)")
  }
}

extension SharedPort: Decodable {
  enum Keys: String, CodingKey, CaseIterable {
    case name, type, kind
  }

  public init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    name = try PortName.check(table.decode(String.self, forKey: .name), key: "name", in: decoder)
    type = try TopicMapping.valueType(table.decode(String.self, forKey: .type), in: decoder)
    kind = try TopicMapping.portKind(table.decodeIfPresent(String.self, forKey: .kind), type: type, in: decoder)
  }
}

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

/// Hub and instance names as topic levels: `[a-z0-9_-]`, so they never carry a wildcard or slash.
enum HubName {
  static func check(_ name: String, key: String, in decoder: Decoder) throws -> String {
    guard !name.isEmpty, name.utf8.count <= 64,
      name.unicodeScalars.allSatisfy({
        ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
      })
    else {
      throw decoder.mistake(key, "'\(name)' must be 1 to 64 of a-z, 0-9, _ and - (it is a topic level)")
    }
    return name
  }
}
