#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#endif

/// The NOAA solar position algorithm (the NOAA Global Monitoring Laboratory's sunrise/sunset
/// spreadsheet, after Meeus): the sun's declination and the equation of time for an instant,
/// and from them the instant the sun's centre crosses a given altitude, rising or setting.
/// Accurate to about a minute between latitudes ±72°.
public struct SolarCalculator: Sendable {
  public let latitude: Double
  public let longitude: Double

  public init(latitude: Double, longitude: Double) {
    self.latitude = latitude
    self.longitude = longitude
  }

  public enum Crossing: Sendable {
    case rising, setting
  }

  /// The instant (seconds since 1970, UTC) the sun crosses `altitude` degrees on the solar day
  /// nearest to UTC date `dayNumber` (days since 1970) at this longitude; nil when it stays
  /// above (polar day) or below (polar night) that altitude all day.
  public func crossing(_ crossing: Crossing, altitude: Double, onDay dayNumber: Int64) -> Double? {
    // Start from local solar noon, then refine once at the estimate, as the spreadsheet does.
    var estimate = Double(dayNumber) * 86400 + (720 - 4 * longitude) * 60
    for _ in 0..<2 {
      guard let minutes = minutesFromMidnight(crossing, altitude: altitude, at: estimate, dayNumber: dayNumber)
      else { return nil }
      estimate = Double(dayNumber) * 86400 + minutes * 60
    }
    return estimate
  }

  /// Minutes after UTC midnight of `dayNumber`, with the sun's position taken at `instant`.
  private func minutesFromMidnight(_ crossing: Crossing, altitude: Double, at instant: Double, dayNumber: Int64)
    -> Double?
  {
    let position = Self.position(at: instant)
    let zenith = Self.radians(90 - altitude)
    let latitude = Self.radians(latitude)
    let cosHourAngle =
      cos(zenith) / (cos(latitude) * cos(position.declination)) - tan(latitude) * tan(position.declination)
    guard cosHourAngle >= -1, cosHourAngle <= 1 else { return nil }
    let hourAngle = Self.degrees(acos(cosHourAngle))
    let noon = 720 - 4 * longitude - position.equationOfTime
    return crossing == .rising ? noon - 4 * hourAngle : noon + 4 * hourAngle
  }

  /// The sun's declination (radians) and the equation of time (minutes) at an instant.
  public static func position(at instant: Double) -> (declination: Double, equationOfTime: Double) {
    let julianDay = instant / 86400 + 2_440_587.5
    let t = (julianDay - 2_451_545) / 36525
    let meanLongitude = (280.46646 + t * (36000.76983 + t * 0.0003032)).truncatingRemainder(dividingBy: 360)
    let meanAnomaly = 357.52911 + t * (35999.05029 - 0.0001537 * t)
    let eccentricity = 0.016708634 - t * (0.000042037 + 0.0000001267 * t)
    let m = radians(meanAnomaly)
    let center =
      sin(m) * (1.914602 - t * (0.004817 + 0.000014 * t)) + sin(2 * m) * (0.019993 - 0.000101 * t) + sin(3 * m)
      * 0.000289
    let trueLongitude = meanLongitude + center
    let omega = radians(125.04 - 1934.136 * t)
    let apparentLongitude = radians(trueLongitude - 0.00569 - 0.00478 * sin(omega))
    let meanObliquity = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60
    let obliquity = radians(meanObliquity + 0.00256 * cos(omega))
    let declination = asin(sin(obliquity) * sin(apparentLongitude))
    let y = pow(tan(obliquity / 2), 2)
    let l0 = radians(meanLongitude)
    let equation =
      y * sin(2 * l0) - 2 * eccentricity * sin(m) + 4 * eccentricity * y * sin(m) * cos(2 * l0) - 0.5 * y * y
      * sin(4 * l0) - 1.25 * eccentricity * eccentricity * sin(2 * m)
    return (declination, 4 * degrees(equation))
  }

  static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
  static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
}
