/// A decoded JSON document. Config sections handed to plugins and values typed on the command
/// line both pass through it, so booleans and numbers never get confused.
public enum JSONValue: Sendable, Hashable, Codable {
  case null
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case string(String)
  case array([JSONValue])
  /// Keys keep their order (config files are read in order).
  case object([(String, JSONValue)])

  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.integer(let a), .integer(let b)): a == b
    case (.number(let a), .number(let b)): a == b
    case (.string(let a), .string(let b)): a == b
    case (.array(let a), .array(let b)): a == b
    case (.object(let a), .object(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
    default: false
    }
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(description)
  }

  public init(from decoder: Decoder) throws {
    if var array = try? decoder.unkeyedContainer() {
      var items: [JSONValue] = []
      while !array.isAtEnd { items.append(try array.decode(JSONValue.self)) }
      self = .array(items)
      return
    }
    if let object = try? decoder.container(keyedBy: AnyKey.self) {
      // JSONDecoder does not keep key order; sort for a stable result.
      self = .object(
        try object.allKeys.sorted { $0.stringValue < $1.stringValue }.map { key in
          (key.stringValue, try object.decode(JSONValue.self, forKey: key))
        })
      return
    }
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      self = .null
    } else if let flag = try? single.decode(Bool.self) {
      self = .bool(flag)
    } else if let integer = try? single.decode(Int64.self) {
      self = .integer(integer)
    } else if let number = try? single.decode(Double.self) {
      self = .number(number)
    } else {
      self = .string(try single.decode(String.self))
    }
  }

  public func encode(to encoder: Encoder) throws {
    switch self {
    case .null:
      var single = encoder.singleValueContainer()
      try single.encodeNil()
    case .bool(let flag):
      var single = encoder.singleValueContainer()
      try single.encode(flag)
    case .integer(let integer):
      var single = encoder.singleValueContainer()
      try single.encode(integer)
    case .number(let number):
      var single = encoder.singleValueContainer()
      try single.encode(number)
    case .string(let string):
      var single = encoder.singleValueContainer()
      try single.encode(string)
    case .array(let items):
      var array = encoder.unkeyedContainer()
      for item in items { try array.encode(item) }
    case .object(let members):
      var object = encoder.container(keyedBy: AnyKey.self)
      for (key, value) in members { try object.encode(value, forKey: AnyKey(key)) }
    }
  }

  /// Parses one JSON text (a bare scalar is allowed).
  public static func parse(_ text: String) -> JSONValue? { JSONParser.parse(text) }

  /// Compact JSON text, keys in their stored order.
  public var description: String {
    switch self {
    case .null: return "null"
    case .bool(let flag): return flag ? "true" : "false"
    case .integer(let integer): return String(integer)
    case .number(let number):
      guard number.isFinite else { return "null" }
      if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
      return String(number)
    case .string(let string): return Self.quote(string)
    case .array(let items): return "[" + items.map(\.description).joined(separator: ",") + "]"
    case .object(let members):
      return "{" + members.map { Self.quote($0.0) + ":" + $0.1.description }.joined(separator: ",") + "}"
    }
  }

  /// The member named `key` of an object.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.0 == key }?.1
  }

  /// A number, whether written as an integer or not.
  public var doubleValue: Double? {
    switch self {
    case .integer(let integer): Double(integer)
    case .number(let number): number
    default: nil
    }
  }

  static func quote(_ string: String) -> String {
    var out = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }
}

struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(_ string: String) { stringValue = string }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}
