import Foundation
import ScheduleTiming
import Testing

/// Sun events by the NOAA algorithm, against published times (to within 2 minutes) and at
/// the polar circle.
struct SunTests {
  func next(_ event: SunEvent, at place: (Double, Double), after start: Int64, in zone: ZoneRules, offset: Int64 = 0)
    -> SunSchedule.Next
  {
    SunSchedule(event: event, offsetSeconds: offset, latitude: place.0, longitude: place.1).next(after: start, in: zone)
  }

  let berlinPlace = (52.52, 13.405)
  let newYorkPlace = (40.7128, -74.006)

  func expectNear(_ actual: Int64?, _ expected: Int64, within seconds: Int64 = 120, _ what: String) {
    guard let actual else {
      Issue.record("\(what): no event")
      return
    }
    #expect(abs(actual - expected) <= seconds, "\(what): off by \(actual - expected) s")
  }

  @Test func berlinAtTheSolstices() {
    let cest: Int64 = 7200
    let cet: Int64 = 3600
    let june = instant(2026, 6, 21, 0, 0, offset: cest)
    // Published: sunrise 04:43, sunset 21:33 CEST; 2026-12-21 sunrise 08:15, sunset 15:54 CET.
    expectNear(
      next(.sunrise, at: berlinPlace, after: june, in: berlin).instant, instant(2026, 6, 21, 4, 43, offset: cest),
      "June sunrise")
    expectNear(
      next(.sunset, at: berlinPlace, after: june, in: berlin).instant, instant(2026, 6, 21, 21, 33, offset: cest),
      "June sunset")
    let december = instant(2026, 12, 21, 0, 0, offset: cet)
    expectNear(
      next(.sunrise, at: berlinPlace, after: december, in: berlin).instant,
      instant(2026, 12, 21, 8, 15, offset: cet), "December sunrise")
    expectNear(
      next(.sunset, at: berlinPlace, after: december, in: berlin).instant,
      instant(2026, 12, 21, 15, 54, offset: cet), "December sunset")
  }

  @Test func newYorkInSummer() {
    let edt: Int64 = -4 * 3600
    let start = instant(2026, 6, 21, 0, 0, offset: edt)
    // Published: sunrise 05:25, sunset 20:31 EDT.
    expectNear(
      next(.sunrise, at: newYorkPlace, after: start, in: newYork).instant, instant(2026, 6, 21, 5, 25, offset: edt),
      "sunrise")
    expectNear(
      next(.sunset, at: newYorkPlace, after: start, in: newYork).instant, instant(2026, 6, 21, 20, 31, offset: edt),
      "sunset")
  }

  @Test func dawnAndDuskAreWhereTheSunIsSixDegreesDown() throws {
    let start = instant(2026, 9, 10, 0, 0, offset: 7200)
    for event in [SunEvent.dawn, .dusk, .sunrise, .sunset] {
      let at = try #require(next(event, at: berlinPlace, after: start, in: berlin).instant)
      #expect(abs(altitude(at: Double(at), latitude: 52.52, longitude: 13.405) - event.altitude) < 0.1, "\(event)")
    }
    let dawn = try #require(next(.dawn, at: berlinPlace, after: start, in: berlin).instant)
    let sunrise = try #require(next(.sunrise, at: berlinPlace, after: start, in: berlin).instant)
    #expect((1800...3000).contains(sunrise - dawn))
  }

  @Test func anOffsetMovesTheEventAndTheNextIsStrictlyAfter() throws {
    let start = instant(2026, 6, 21, 0, 0, offset: 7200)
    let sunset = try #require(next(.sunset, at: berlinPlace, after: start, in: berlin).instant)
    #expect(next(.sunset, at: berlinPlace, after: start, in: berlin, offset: -1800).instant == sunset - 1800)
    let following = try #require(next(.sunset, at: berlinPlace, after: sunset, in: berlin).instant)
    #expect((86400 - 300...86400 + 300).contains(following - sunset))
  }

  @Test func polarNightAndMidnightSunHaveNoEventAndSaySo() throws {
    let tromso = (69.6496, 18.956)
    let oslo = zone("Europe/Oslo")
    let winter = next(.sunrise, at: tromso, after: instant(2026, 12, 10, 0, 0, offset: 3600), in: oslo)
    let sunrise = try #require(winter.instant)
    #expect(
      (instant(2027, 1, 12, 0, 0, offset: 3600)...instant(2027, 1, 19, 0, 0, offset: 3600)).contains(sunrise))
    #expect(winter.daysWithoutEvent.first == LocalDateTime(2026, 12, 10))
    #expect(winter.daysWithoutEvent.contains(LocalDateTime(2026, 12, 21)))
    let summer = next(.sunset, at: tromso, after: instant(2026, 6, 21, 0, 0, offset: 7200), in: oslo)
    #expect(summer.daysWithoutEvent.contains(LocalDateTime(2026, 6, 21)))
    #expect((summer.instant ?? 0) > instant(2026, 7, 18, 0, 0, offset: 7200))
    // Civil dusk still happens in Tromsø's polar night.
    #expect(
      next(.dusk, at: tromso, after: instant(2026, 12, 21, 0, 0, offset: 3600), in: oslo).daysWithoutEvent.isEmpty)
  }

  /// The sun's altitude in degrees from the textbook formula, to check the inverse.
  func altitude(at instant: Double, latitude: Double, longitude: Double) -> Double {
    let (declination, equationOfTime) = SolarCalculator.position(at: instant)
    let minutesOfDay = instant.truncatingRemainder(dividingBy: 86400) / 60
    let trueSolarTime = minutesOfDay + equationOfTime + 4 * longitude
    let hourAngle = (trueSolarTime / 4 - 180) * .pi / 180
    let phi = latitude * .pi / 180
    let cosZenith = sin(phi) * sin(declination) + cos(phi) * cos(declination) * cos(hourAngle)
    return 90 - acos(cosZenith) * 180 / .pi
  }
}
