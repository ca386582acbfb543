import PatchbayValues

/// A message the Homebridge-websocket plugin sends to its client.
public enum ServerMessage: Sendable, Hashable {
  /// The answer to add/remove and to errors.
  case response(ack: Bool, message: String)
  /// The answer to `get`: accessory name -> {"service": S, "characteristics": {C: V}}.
  case accessories([String: JSONValue])
  /// HomeKit wrote a value.
  case set(name: String, characteristic: String, value: JSONValue)
  /// HomeKit read a value; the client should answer with `callback`.
  case get(name: String, characteristic: String)

  /// Why a frame from the server could not be understood.
  public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
    case frame(HomebridgeFrame.DecodingFailure)
    case missingPayload(topic: String)
    case missingField(topic: String, field: String)
    case unknownTopic(String)

    public var description: String {
      switch self {
      case .frame(let failure): "\(failure)"
      case .missingPayload(let topic): "'\(topic)' without a payload object"
      case .missingField(let topic, let field): "'\(topic)' without '\(field)'"
      case .unknownTopic(let topic): "unknown topic '\(topic)'"
      }
    }
  }

  public init(text: String) throws(Problem) {
    let frame: HomebridgeFrame
    do {
      frame = try HomebridgeFrame(text: text)
    } catch {
      throw .frame(error)
    }
    try self.init(frame: frame)
  }

  public init(frame: HomebridgeFrame) throws(Problem) {
    guard let payload = frame.payload?.objectValue else { throw .missingPayload(topic: frame.topic) }
    func string(_ field: String) throws(Problem) -> String {
      guard let value = payload[field]?.stringValue else { throw .missingField(topic: frame.topic, field: field) }
      return value
    }
    switch frame.topic {
    case "response":
      guard let ack = payload["ack"]?.boolValue else { throw .missingField(topic: frame.topic, field: "ack") }
      self = .response(ack: ack, message: payload["message"]?.stringValue ?? "")
    case "accessories":
      self = .accessories(payload)
    case "set":
      guard let value = payload["value"] else { throw .missingField(topic: frame.topic, field: "value") }
      self = .set(name: try string("name"), characteristic: try string("characteristic"), value: value)
    case "get":
      self = .get(name: try string("name"), characteristic: try string("characteristic"))
    default:
      throw .unknownTopic(frame.topic)
    }
  }

  public var frame: HomebridgeFrame {
    switch self {
    case .response(let ack, let message):
      HomebridgeFrame(topic: "response", payload: .sortedObject(["ack": .bool(ack), "message": .string(message)]))
    case .accessories(let accessories):
      HomebridgeFrame(topic: "accessories", payload: .sortedObject(accessories))
    case .set(let name, let characteristic, let value):
      HomebridgeFrame(
        topic: "set",
        payload: .sortedObject(["name": .string(name), "characteristic": .string(characteristic), "value": value]))
    case .get(let name, let characteristic):
      HomebridgeFrame(
        topic: "get", payload: .sortedObject(["name": .string(name), "characteristic": .string(characteristic)]))
    }
  }

  public var text: String { frame.text }
}
