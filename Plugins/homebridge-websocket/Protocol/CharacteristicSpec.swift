import PatchbayValues

/// The value format of a HAP characteristic, as HAP-NodeJS names it.
public enum CharacteristicFormat: String, Sendable, Hashable, Codable {
  case bool, uint8, uint16, uint32, int, float, string

  public var isInteger: Bool { self == .uint8 || self == .uint16 || self == .uint32 || self == .int }
}

/// What a HAP characteristic accepts: format, range, who may write it.
public struct CharacteristicSpec: Sendable, Hashable {
  /// The HAP name the protocol uses, e.g. `Brightness`.
  public var name: String
  public var format: CharacteristicFormat
  public var minValue: Double?
  public var maxValue: Double?
  /// HomeKit may write it (permission `pw`): the client then receives `set` messages.
  public var homeKitWritable: Bool
  /// A stateless event (ProgrammableSwitchEvent): never cached, never re-sent on reconnect.
  public var isEvent: Bool

  public init(
    _ name: String, _ format: CharacteristicFormat, min: Double? = nil, max: Double? = nil,
    homeKitWritable: Bool = false, isEvent: Bool = false
  ) {
    self.name = name
    self.format = format
    minValue = min
    maxValue = max
    self.homeKitWritable = homeKitWritable
    self.isEvent = isEvent
  }

  /// The lower snake name used for ports: `CurrentTemperature` -> `current_temperature`.
  public var snakeName: String { Self.snakeName(name) }

  public static func snakeName(_ camel: String) -> String {
    var result = ""
    for character in camel {
      if character.isUppercase {
        if !result.isEmpty { result.append("_") }
        result.append(contentsOf: character.lowercased())
      } else {
        result.append(character)
      }
    }
    return result
  }

  /// `value` made acceptable to the real server: a bool for bool characteristics, a finite
  /// number inside the range (rounded for integer formats) for numeric ones. nil when it
  /// cannot be converted (a string, null, non-finite number, or a string characteristic).
  /// A number comes back as `.number` whether it was read as `.integer` or `.number`:
  /// JavaScript has one number type, so `1` and `1.0` are the same value to the server.
  public func conformed(_ value: JSONValue) -> JSONValue? {
    switch format {
    case .bool:
      switch value {
      case .bool: return value
      default:
        guard let number = value.doubleValue, number.isFinite else { return nil }
        return .bool(number != 0)
      }
    case .string:
      return nil
    case .uint8, .uint16, .uint32, .int, .float:
      var number: Double
      if case .bool(let flag) = value {
        number = flag ? 1 : 0
      } else if let given = value.doubleValue, given.isFinite {
        number = given
      } else {
        return nil
      }
      if format.isInteger { number = number.rounded() }
      if let minValue, number < minValue { number = minValue }
      if let maxValue, number > maxValue { number = maxValue }
      return .number(number)
    }
  }

  /// The same spec with props an `add` message overrides (`minValue`, `maxValue`).
  public func with(props: [String: JSONValue]) -> CharacteristicSpec {
    var copy = self
    if let minValue = props["minValue"]?.doubleValue, minValue.isFinite { copy.minValue = minValue }
    if let maxValue = props["maxValue"]?.doubleValue, maxValue.isFinite { copy.maxValue = maxValue }
    return copy
  }
}
