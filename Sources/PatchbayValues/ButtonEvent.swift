/// What a button did. Raw values match `PB_BUTTON_*`.
public enum ButtonAction: UInt32, Sendable, CaseIterable, Codable {
  case down = 1
  case up = 2
  case click = 3
  case doubleClick = 4
  case hold = 5

  /// The name used in config files and on the command line.
  public var name: String {
    switch self {
    case .down: "down"
    case .up: "up"
    case .click: "click"
    case .doubleClick: "double_click"
    case .hold: "hold"
    }
  }

  public init?(name: String) {
    guard let found = Self.allCases.first(where: { $0.name == name }) else { return nil }
    self = found
  }
}

/// One button action, with whether it was stored on the button and delivered late.
public struct ButtonEvent: Sendable, Hashable, Codable {
  public var action: ButtonAction
  public var queued: Bool
  /// Age of the press when it was published, in milliseconds.
  public var ageMs: UInt32

  public init(action: ButtonAction, queued: Bool = false, ageMs: UInt32 = 0) {
    self.action = action
    self.queued = queued
    self.ageMs = ageMs
  }
}
