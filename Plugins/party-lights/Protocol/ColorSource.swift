import PatchbayPluginKit

/// Where the effect's colors come from: the whole hue wheel at a fixed saturation and
/// brightness, or a palette of chosen colors.
public enum ColorSource: Sendable, Equatable {
  /// Hue advances by `stepDegrees` per step, starting at `startHue`.
  case wheel(stepDegrees: Double, startHue: Double, saturation: Double, brightness: Double)
  /// One palette entry per step.
  case palette([HSBColor])

  /// How many distinct positions one trip around takes (24 for the seed's 15° steps).
  public var positionsPerCycle: Int {
    switch self {
    case .wheel(let step, _, _, _): max(1, Int((360 / step).rounded(.up)))
    case .palette(let colors): colors.count
    }
  }

  /// The color at `position` (any integer, negative ones count backwards), moved by
  /// `offset` (degrees for the wheel, entries for a palette).
  public func color(at position: Int, offset: Double) -> HSBColor {
    switch self {
    case .wheel(let step, let start, let saturation, let brightness):
      return HSBColor(
        hue: Self.wrap(start + Double(position) * step + offset), saturation: saturation, brightness: brightness)
    case .palette(let colors):
      let index = (position + Int(offset.rounded())) % colors.count
      return colors[index < 0 ? index + colors.count : index]
    }
  }

  /// Degrees into [0, 360), without the float noise of repeated addition.
  static func wrap(_ degrees: Double) -> Double {
    let wrapped = degrees.truncatingRemainder(dividingBy: 360)
    let positive = wrapped < 0 ? wrapped + 360 : wrapped
    let rounded = (positive * 1_000_000).rounded() / 1_000_000
    return rounded >= 360 ? 0 : rounded
  }
}
