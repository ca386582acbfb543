import CPatchbayPlugin

/// The value types a port can carry (the kit's mirror of `PB_VALUE_*`).
public enum ValueType: UInt32, Sendable, CaseIterable {
  case trigger = 1, bool, integer, number, text, color, light, button
}

/// A color: hue in degrees [0, 360), saturation and brightness in percent [0, 100].
public struct HSBColor: Sendable, Hashable {
  public var hue: Double
  public var saturation: Double
  public var brightness: Double
  public init(hue: Double, saturation: Double, brightness: Double) {
    self.hue = hue
    self.saturation = saturation
    self.brightness = brightness
  }
}

/// A partial light command; nil fields are left as they are.
public struct LightCommand: Sendable, Hashable {
  public var on: Bool?
  public var brightness: Double?
  public var color: HSBColor?
  public var colorTemperature: Double?
  public var transitionMs: UInt32?
  public init(
    on: Bool? = nil, brightness: Double? = nil, color: HSBColor? = nil, colorTemperature: Double? = nil,
    transitionMs: UInt32? = nil
  ) {
    self.on = on
    self.brightness = brightness
    self.color = color
    self.colorTemperature = colorTemperature
    self.transitionMs = transitionMs
  }
}

public enum ButtonAction: UInt32, Sendable, CaseIterable {
  case down = 1, up, click, doubleClick, hold
}

public struct ButtonEvent: Sendable, Hashable {
  public var action: ButtonAction
  public var queued: Bool
  public var ageMs: UInt32
  public init(action: ButtonAction, queued: Bool = false, ageMs: UInt32 = 0) {
    self.action = action
    self.queued = queued
    self.ageMs = ageMs
  }
}

/// A value on a port.
public enum Value: Sendable, Hashable {
  case trigger
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case text(String)
  case color(HSBColor)
  case light(LightCommand)
  case button(ButtonEvent)

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
