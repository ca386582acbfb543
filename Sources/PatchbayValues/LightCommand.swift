/// A partial light command: only the fields that are set change; the rest are kept.
public struct LightCommand: Sendable, Hashable, Codable {
  public var on: Bool?
  /// Percent [0, 100].
  public var brightness: Double?
  /// Hue and saturation; the color's brightness is ignored in favour of `brightness`.
  public var color: HSBColor?
  /// Mired [153, 500].
  public var colorTemperature: Double?
  /// How long the change should take, in milliseconds.
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

  enum CodingKeys: String, CodingKey {
    case on, brightness, color
    case colorTemperature = "color_temperature"
    case transitionMs = "transition_ms"
  }
}
