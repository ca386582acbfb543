/// A value on a port. The hub-side twin of the C `pb_value`.
public enum Value: Sendable, Hashable {
  case trigger
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case text(String)
  case color(HSBColor)
  /// Boxed: a light command is five optionals (about 60 bytes); inline, it made every Value
  /// that large, and each copy of one (three per hop) a call through its value witness.
  indirect case light(LightCommand)
  case button(ButtonEvent)

  /// Longest text value, in UTF-8 bytes (the ABI's limit).
  public static let maximumTextBytes = 4096

  public var type: ValueType {
    switch self {
    case .trigger: .trigger
    case .bool: .bool
    case .integer: .integer
    case .number: .number
    case .text: .text
    case .color: .color
    case .light: .light
    case .button: .button
    }
  }
}
