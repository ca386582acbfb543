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
