/// The client side of the protocol without any I/O: which accessories to announce, the
/// latest value of every characteristic, and what to do with each frame from the server.
/// The plugin drives it from one event loop; tests and the fuzz target drive it directly.
///
/// Everything it returns for sending is a well-formed frame with a payload, and every value
/// has passed `CharacteristicSpec.conformed` (right JSON type, clamped to the range): the
/// real server crashes on anything else and does not check upper bounds.
public struct ClientSession: Sendable {
  /// One characteristic of one accessory.
  public struct Key: Sendable, Hashable, CustomStringConvertible {
    public var accessory: String
    public var characteristic: String
    public init(accessory: String, characteristic: String) {
      self.accessory = accessory
      self.characteristic = characteristic
    }
    public var description: String { "\(accessory).\(characteristic)" }
  }

  /// HomeKit wrote a value (a user tapped a tile, a scene ran).
  public struct HomeKitWrite: Sendable, Hashable {
    public var key: Key
    public var spec: CharacteristicSpec
    public var value: JSONValue
  }

  public enum LogLevel: Sendable, Hashable {
    case debug, info, warning
  }

  /// What one step of the session asks its driver to do.
  public struct Output: Sendable, Hashable {
    public var send: [ClientMessage] = []
    public var homeKitWrites: [HomeKitWrite] = []
    public var logs: [Log] = []

    public struct Log: Sendable, Hashable {
      public var level: LogLevel
      public var message: String
    }

    mutating func log(_ level: LogLevel, _ message: String) { logs.append(Log(level: level, message: message)) }
  }

  public let accessories: [AccessoryDefinition]
  private let byName: [String: AccessoryDefinition]
  /// Latest value per characteristic, kept while disconnected and re-sent on connect.
  public private(set) var values: [Key: JSONValue] = [:]
  public private(set) var isOpen = false

  public init(accessories: [AccessoryDefinition]) {
    self.accessories = accessories
    byName = Dictionary(accessories.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
  }

  public func value(_ key: Key) -> JSONValue? { values[key] }

  /// The websocket is open: announce every accessory (an "already used" answer is success),
  /// then push every known value, because the server forgets values when it restarts.
  public mutating func opened() -> Output {
    isOpen = true
    var output = Output()
    output.send = accessories.map { .add($0) }
    for definition in accessories {
      for spec in definition.characteristics {
        let key = Key(accessory: definition.name, characteristic: spec.name)
        if let value = values[key] {
          output.send.append(.setValue(name: key.accessory, characteristic: key.characteristic, value: value))
        }
      }
    }
    output.log(.info, "connected: adding \(accessories.count) accessories, re-sending \(values.count) values")
    return output
  }

  public mutating func closed() {
    isOpen = false
  }

  /// The hub set a value. It is conformed to the characteristic, remembered (unless it is an
  /// event) and sent at once when connected.
  public mutating func update(_ key: Key, to value: JSONValue) -> Output {
    var output = Output()
    guard let spec = byName[key.accessory]?.characteristic(named: key.characteristic) else {
      output.log(.warning, "no characteristic \(key) is configured; value \(value) dropped")
      return output
    }
    guard let conformed = spec.conformed(value) else {
      output.log(.warning, "\(key): \(value) is not a valid \(spec.format.rawValue) value; dropped")
      return output
    }
    if conformed != value { output.log(.debug, "\(key): \(value) adjusted to \(conformed) (range and format)") }
    if spec.isEvent {
      guard isOpen else {
        output.log(.warning, "\(key): event \(conformed) dropped, not connected to Homebridge")
        return output
      }
    } else {
      values[key] = conformed
    }
    if isOpen {
      output.send.append(.setValue(name: key.accessory, characteristic: key.characteristic, value: conformed))
    } else {
      output.log(.debug, "\(key) = \(conformed) kept until Homebridge is connected")
    }
    return output
  }

  /// One text frame from the server. Malformed or unexpected frames are logged and ignored.
  public mutating func receive(text: String) -> Output {
    var output = Output()
    let message: ServerMessage
    do {
      message = try ServerMessage(text: text)
    } catch {
      output.log(.warning, "ignored a frame from Homebridge (\(error)): \(Self.excerpt(text))")
      return output
    }
    switch message {
    case .response(let ack, let message):
      if ack {
        output.log(.debug, "Homebridge: \(message)")
      } else if message.hasSuffix("is already used.") {
        output.log(.debug, "Homebridge already knows the accessory: \(message)")
      } else {
        output.log(.warning, "Homebridge refused: \(message)")
      }
    case .accessories:
      output.log(.debug, "Homebridge sent its accessory list")
    case .set(let name, let characteristic, let value):
      let key = Key(accessory: name, characteristic: characteristic)
      guard let spec = byName[name]?.characteristic(named: characteristic) else {
        output.log(.warning, "HomeKit wrote \(key), which is not configured; ignored")
        break
      }
      guard let conformed = spec.conformed(value) else {
        output.log(
          .warning, "HomeKit wrote \(key) = \(Self.excerpt(value.jsonText)), not a \(spec.format.rawValue); ignored")
        break
      }
      if !spec.isEvent { values[key] = conformed }
      output.homeKitWrites.append(HomeKitWrite(key: key, spec: spec, value: conformed))
    case .get(let name, let characteristic):
      let key = Key(accessory: name, characteristic: characteristic)
      if let value = values[key] {
        output.send.append(.callback(name: name, characteristic: characteristic, value: value))
      } else {
        output.log(.debug, "HomeKit read \(key), which has no value yet; not answered")
      }
    }
    return output
  }

  static func excerpt(_ text: String) -> String {
    text.count > 200 ? String(text.prefix(200)) + "..." : text
  }
}
