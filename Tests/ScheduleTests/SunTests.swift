import Foundation
import ScheduleProtocol
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

/// A whole year of sun events in places far apart: each belongs to its local day (within 15 h
/// of the clock's noon: 12 h either side of the sun's, which is 1.5 h after the clock's in
/// Reykjavik, whose June sunset comes just after midnight), and `next` meets them once each,
/// a day apart, even where the zone's noon is far from the sun's (Kiritimati keeps UTC+14 at
/// 157° W).
struct SunYearTests {
  @Test(arguments: [
    ("Europe/Berlin", 52.52, 13.405), ("America/New_York", 40.71, -74.01), ("Australia/Sydney", -33.87, 151.21),
    ("Pacific/Auckland", -36.85, 174.76), ("Pacific/Honolulu", 21.31, -157.86), ("Pacific/Kiritimati", 1.87, -157.43),
    ("Asia/Kolkata", 28.61, 77.21), ("Atlantic/Reykjavik", 64.15, -21.94), ("America/Argentina/Ushuaia", -54.8, -68.3),
  ])
  func oneEventForEachLocalDate(zoneName: String, latitude: Double, longitude: Double) throws {
    let zone = zone(zoneName)
    let start = zone.resolve(LocalDateTime(2026, 1, 1)).instant
    let end = zone.resolve(LocalDateTime(2027, 1, 1)).instant
    for event in SunEvent.allCases {
      let schedule = SunSchedule(event: event, latitude: latitude, longitude: longitude)
      var days = 0
      for day in LocalDateTime(2026, 1, 1).dayNumber..<LocalDateTime(2027, 1, 1).dayNumber {
        // Reykjavik has white nights: no dawn or dusk for weeks in summer.
        guard let at = schedule.eventInstant(onDay: day, in: zone) else { continue }
        let noon = zone.resolve(LocalDateTime(localSeconds: day * 86400 + 43200)).instant
        #expect(abs(at - noon) < 15 * 3600, "\(zoneName) \(event) \(zone.localTime(at: at))")
        days += 1
      }
      // Following `next` through the year meets each of those days' events once, in order.
      var cursor = start
      var events = 0
      while true {
        let next = schedule.next(after: cursor, in: zone)
        guard let at = next.instant, at < end + 6 * 3600 else { break }
        if cursor != start, next.daysWithoutEvent.isEmpty {
          #expect(abs(at - cursor - 86400) < 1800, "\(zoneName) \(event) \(zone.localTime(at: at))")
        }
        cursor = at
        events += 1
      }
      #expect(abs(events - days) <= 1, "\(zoneName) \(event): \(events) events, \(days) days")
    }
  }
}
