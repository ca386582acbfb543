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

extension LightCommand {
  /// This command with the fields `newer` sets replaced: the state a light is in after both. A
  /// light shows a color or a color temperature, so a newer one of them replaces the other.
  public func merged(with newer: LightCommand) -> LightCommand {
    let switchesMode = newer.color != nil || newer.colorTemperature != nil
    return LightCommand(
      on: newer.on ?? on, brightness: newer.brightness ?? brightness,
      color: switchesMode ? newer.color : color,
      colorTemperature: switchesMode ? newer.colorTemperature : colorTemperature,
      transitionMs: newer.transitionMs ?? transitionMs)
  }
}
