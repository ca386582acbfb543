import HomebridgeProtocol

/// In this plugin, JSON means a Homebridge-websocket payload, not the hub's config tree that
/// the plugin kit also exports under the same name.
typealias JSONValue = HomebridgeProtocol.JSONValue
