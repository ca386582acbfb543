import Foundation

/// A JSON value as the bridge sends and reads it, keeping booleans apart from numbers
/// (Foundation's JSONSerialization turns both into NSNumber on Linux).
public enum HueJSON: Sendable, Hashable, Codable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([HueJSON])
  case object([String: HueJSON])

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
    } else if let list = try? container.decode([HueJSON].self) {
      self = .array(list)
    } else {
      self = .object(try container.decode([String: HueJSON].self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let flag): try container.encode(flag)
    case .number(let number):
      if number == number.rounded(), abs(number) < 1e15 {
        try container.encode(Int64(number))
      } else {
        try container.encode(number)
      }
    case .string(let text): try container.encode(text)
    case .array(let list): try container.encode(list)
    case .object(let members): try container.encode(members)
    }
  }

  /// Parses JSON text; nil when it is not JSON.
  public init?(data: Data) {
    guard let value = try? JSONDecoder().decode(HueJSON.self, from: data) else { return nil }
    self = value
  }

  /// Compact JSON text with sorted keys (stable for records and tests).
  public var text: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
  }

  public subscript(key: String) -> HueJSON? {
    if case .object(let members) = self { members[key] } else { nil }
  }

  public var objectValue: [String: HueJSON]? { if case .object(let members) = self { members } else { nil } }
  public var arrayValue: [HueJSON]? { if case .array(let list) = self { list } else { nil } }
  public var stringValue: String? { if case .string(let text) = self { text } else { nil } }
  public var boolValue: Bool? { if case .bool(let flag) = self { flag } else { nil } }
  public var numberValue: Double? { if case .number(let number) = self { number } else { nil } }

  /// The number when it is a whole number that fits an Int.
  public var integerValue: Int? {
    guard case .number(let number) = self, number == number.rounded(), abs(number) < 1e15 else { return nil }
    return Int(number)
  }
}
