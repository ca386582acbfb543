/// A color as hue in degrees [0, 360), saturation and brightness in percent [0, 100].
public struct HSBColor: Sendable, Hashable, Codable {
  public var hue: Double
  public var saturation: Double
  public var brightness: Double

  public init(hue: Double, saturation: Double, brightness: Double) {
    self.hue = hue
    self.saturation = saturation
    self.brightness = brightness
  }

  /// The same color with every component in range (hue wrapped, percentages clamped).
  public var normalized: HSBColor {
    var wrapped = hue.truncatingRemainder(dividingBy: 360)
    if wrapped < 0 { wrapped += 360 }
    return HSBColor(
      hue: wrapped, saturation: min(max(saturation, 0), 100), brightness: min(max(brightness, 0), 100))
  }
}
