import PatchbayValues

/// One websocket text frame of the Homebridge-websocket protocol: `{"topic": T, "payload": {...}}`.
public struct HomebridgeFrame: Sendable, Hashable {
  public var topic: String
  /// nil when the frame has no `payload` key (a frame the real server crashes on).
  public var payload: JSONValue?

  public init(topic: String, payload: JSONValue?) {
    self.topic = topic
    self.payload = payload
  }

  /// Why a text is not a frame.
  public enum DecodingFailure: Error, Sendable, Hashable, CustomStringConvertible {
    case notJSON
    case notAnObject
    case missingTopic

    public var description: String {
      switch self {
      case .notJSON: "malformed JSON"
      case .notAnObject: "JSON is not an object"
      case .missingTopic: "no string 'topic'"
      }
    }
  }

  public init(text: String) throws(DecodingFailure) {
    guard let json = JSONValue.parse(text) else { throw .notJSON }
    guard let members = json.objectValue else { throw .notAnObject }
    guard let topic = members["topic"]?.stringValue else { throw .missingTopic }
    self.topic = topic
    payload = members["payload"]
  }

  /// The frame's JSON text. A frame without payload is written with an empty one: this
  /// encoder never produces a frame that would crash the real server.
  public var text: String {
    JSONValue.sortedObject(["topic": .string(topic), "payload": payload ?? .object([])]).description
  }
}
