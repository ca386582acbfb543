import PatchbayValues

/// A message a client sends to the Homebridge-websocket plugin.
public enum ClientMessage: Sendable, Hashable {
  case add(AccessoryDefinition)
  case remove(name: String)
  case setValue(name: String, characteristic: String, value: JSONValue)
  /// Answers the server's `get`: fills its cache; HomeKit is not notified.
  case callback(name: String, characteristic: String, value: JSONValue)
  /// One accessory by name, or `"all"`.
  case get(name: String)

  public var frame: HomebridgeFrame {
    switch self {
    case .add(let definition):
      HomebridgeFrame(topic: "add", payload: definition.addPayload)
    case .remove(let name):
      HomebridgeFrame(topic: "remove", payload: .sortedObject(["name": .string(name)]))
    case .setValue(let name, let characteristic, let value):
      HomebridgeFrame(
        topic: "setValue",
        payload: .sortedObject(["name": .string(name), "characteristic": .string(characteristic), "value": value]))
    case .callback(let name, let characteristic, let value):
      HomebridgeFrame(
        topic: "callback",
        payload: .sortedObject(["name": .string(name), "characteristic": .string(characteristic), "value": value]))
    case .get(let name):
      HomebridgeFrame(topic: "get", payload: .sortedObject(["name": .string(name)]))
    }
  }

  public var text: String { frame.text }
}
