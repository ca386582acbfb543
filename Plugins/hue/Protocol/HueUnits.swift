/// Conversions between the hub's units (percent, degrees, mired, milliseconds) and the v1
/// API's ranges. Every conversion clamps, so no out-of-range value reaches a bridge.
public enum HueUnits {
  public static let brightnessRange = 1...254
  public static let hueRange = 0...65535
  public static let saturationRange = 0...254
  public static let colorTemperatureRange = 153...500
  /// The largest transition time the API takes (100 ms units, a UInt16).
  public static let transitionRange = 0...65535

  /// Percent [0, 100] to `bri` 1...254 (0 % is the dimmest level, not off: off is `on`).
  public static func bri(percent: Double) -> Int {
    clamp(Int((percent.finiteOr(0) / 100 * 254).rounded()), brightnessRange)
  }

  public static func percent(bri: Int) -> Double {
    Double(clamp(bri, brightnessRange)) / 254 * 100
  }

  /// Degrees (any, wrapped into [0, 360)) to `hue` 0...65535.
  public static func hue(degrees: Double) -> Int {
    var wrapped = degrees.finiteOr(0).truncatingRemainder(dividingBy: 360)
    if wrapped < 0 { wrapped += 360 }
    return clamp(Int((wrapped / 360 * 65535).rounded()), hueRange)
  }

  /// `hue` 0...65535 to degrees in [0, 360).
  public static func degrees(hue: Int) -> Double {
    let degrees = Double(clamp(hue, hueRange)) / 65535 * 360
    return degrees >= 360 ? 0 : degrees
  }

  public static func sat(percent: Double) -> Int {
    clamp(Int((percent.finiteOr(0) / 100 * 254).rounded()), saturationRange)
  }

  public static func percent(sat: Int) -> Double {
    Double(clamp(sat, saturationRange)) / 254 * 100
  }

  public static func ct(mired: Double) -> Int {
    clamp(Int(mired.finiteOr(Double(colorTemperatureRange.lowerBound)).rounded()), colorTemperatureRange)
  }

  /// Milliseconds to `transitiontime` (100 ms units, rounded to the nearest).
  public static func transitionTime(milliseconds: UInt32) -> Int {
    clamp(Int((Double(milliseconds) / 100).rounded()), transitionRange)
  }

  static func clamp(_ value: Int, _ range: ClosedRange<Int>) -> Int {
    min(max(value, range.lowerBound), range.upperBound)
  }
}

extension Double {
  fileprivate func finiteOr(_ fallback: Double) -> Double { isFinite ? self : fallback }
}
