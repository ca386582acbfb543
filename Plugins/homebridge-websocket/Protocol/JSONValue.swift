import Foundation

/// A JSON value as it travels in a Homebridge-websocket payload.
public enum JSONValue: Sendable, Hashable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public subscript(key: String) -> JSONValue? {
    if case .object(let members) = self { return members[key] }
    return nil
  }

  public var stringValue: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  public var boolValue: Bool? {
    if case .bool(let flag) = self { return flag }
    return nil
  }

  public var numberValue: Double? {
    if case .number(let number) = self { return number }
    return nil
  }

  public var objectValue: [String: JSONValue]? {
    if case .object(let members) = self { return members }
    return nil
  }

  /// Compact JSON text of this value (keys sorted, so output is stable).
  public var jsonText: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(self) else { return "null" }
    return String(decoding: data, as: UTF8.self)
  }

  /// Parses JSON text; nil when it is not valid JSON.
  public init?(jsonText: String) {
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(jsonText.utf8)) else { return nil }
    self = value
  }
}

extension JSONValue: Codable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let flag = try? container.decode(Bool.self) {
      self = .bool(flag)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let text = try? container.decode(String.self) {
      self = .string(text)
    } else if let members = try? container.decode([String: JSONValue].self) {
      self = .object(members)
    } else if let elements = try? container.decode([JSONValue].self) {
      self = .array(elements)
    } else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let flag): try container.encode(flag)
    case .number(let number):
      // Integral numbers go out without a fraction, as JavaScript would print them.
      if number.isFinite, number == number.rounded(), abs(number) < 1e15 {
        try container.encode(Int64(number))
      } else {
        try container.encode(number)
      }
    case .string(let text): try container.encode(text)
    case .array(let elements): try container.encode(elements)
    case .object(let members): try container.encode(members)
    }
  }
}

extension JSONValue: CustomStringConvertible {
  /// How the simulator and logs print a value: `true`, `42`, `"text"`.
  public var description: String { jsonText }
}
