/// Reading a `JSONValue` by what it holds, and building an object from a dictionary: for
/// plugins that speak a JSON protocol (a Hue bridge, Homebridge-websocket).
extension JSONValue {
  /// The members of an object by key (a repeated key: the last wins, as JavaScript reads it).
  public var objectValue: [String: JSONValue]? {
    guard case .object(let members) = self else { return nil }
    return Dictionary(members, uniquingKeysWith: { _, last in last })
  }

  public var arrayValue: [JSONValue]? { if case .array(let items) = self { items } else { nil } }
  public var stringValue: String? { if case .string(let text) = self { text } else { nil } }
  public var boolValue: Bool? { if case .bool(let flag) = self { flag } else { nil } }

  /// The number when it is whole and fits an Int (`200` and `200.0` alike).
  public var integerValue: Int? {
    switch self {
    case .integer(let integer): return Int(exactly: integer)
    case .number(let number) where number == number.rounded() && abs(number) < 1e15: return Int(number)
    default: return nil
    }
  }

  /// An object with its keys sorted, so equal tables compare and print the same.
  public static func sortedObject(_ members: [String: JSONValue]) -> JSONValue {
    .object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
  }
}
