/// The closed set of value types that flow through ports. Raw values match `PB_VALUE_*`.
public enum ValueType: UInt32, Sendable, CaseIterable, Codable {
  case trigger = 1
  case bool = 2
  case integer = 3
  case number = 4
  case text = 5
  case color = 6
  case light = 7
  case button = 8

  /// The name used in config files, `patchbay plugins` and messages.
  public var name: String {
    switch self {
    case .trigger: "trigger"
    case .bool: "bool"
    case .integer: "integer"
    case .number: "number"
    case .text: "text"
    case .color: "color"
    case .light: "light"
    case .button: "button"
    }
  }

  public init?(name: String) {
    guard let found = Self.allCases.first(where: { $0.name == name }) else { return nil }
    self = found
  }
}
