import Foundation
import PatchbayTestSupport
import ScheduleProtocol
import Testing

/// The cron search against a slow reference built on Foundation's calendar, for many random
/// expressions; and invariants over a whole year of Europe/Berlin with both clock changes.
struct CronPropertyTests {

  func randomField(_ range: ClosedRange<Int>, _ generator: inout SplitMix64) -> String {
    switch Int.random(in: 0..<6, using: &generator) {
    case 0: return "*"
    case 1: return String(Int.random(in: range, using: &generator))
    case 2:
      let low = Int.random(in: range, using: &generator)
      return "\(low)-\(Int.random(in: low...range.upperBound, using: &generator))"
    case 3: return "*/\(Int.random(in: 2...max(2, range.count / 2), using: &generator))"
    case 4:
      return (0..<3).map { _ in String(Int.random(in: range, using: &generator)) }.joined(separator: ",")
    default:
      let low = Int.random(in: range, using: &generator)
      return "\(low)-\(range.upperBound)/\(Int.random(in: 1...5, using: &generator))"
    }
  }

  /// The next match after `start` in UTC, day by day with Foundation's calendar.
  func reference(_ cron: CronExpression, after start: Int64) -> Int64? {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let startDay = start - ((start % 86400) + 86400) % 86400
    for day in 0..<(366 * 8) {
      let midnight = startDay + Int64(day) * 86400
      let parts = calendar.dateComponents(
        [.year, .month, .day, .weekday], from: Date(timeIntervalSince1970: TimeInterval(midnight)))
      let weekday = parts.weekday! - 1
      guard cron.months.contains(parts.month!) else { continue }
      let byDate = cron.daysOfMonth.contains(parts.day!)
      let byWeekday = cron.daysOfWeek.contains(weekday)
      let dayMatches =
        cron.daysOfMonth.isRestricted && cron.daysOfWeek.isRestricted
        ? byDate || byWeekday
        : (cron.daysOfMonth.isRestricted ? byDate : true) && (cron.daysOfWeek.isRestricted ? byWeekday : true)
      guard dayMatches else { continue }
      for hour in 0..<24 where cron.hours.contains(hour) {
        for minute in 0..<60 where cron.minutes.contains(minute) {
          let at = midnight + Int64(hour * 3600 + minute * 60)
          if at > start { return at }
        }
      }
    }
    return nil
  }

  @Test func matchesAReferenceSearchForRandomExpressions() throws {
    var generator = SplitMix64(seed: 20_261_124)
    let utc = zone("UTC")
    var checked = 0
    while checked < 300 {
      let text = [
        randomField(0...59, &generator), randomField(0...23, &generator), randomField(1...31, &generator),
        randomField(1...12, &generator), randomField(0...6, &generator),
      ].joined(separator: " ")
      guard let cron = try? CronExpression(text) else { continue }
      let start = Int64.random(in: 1_700_000_000...1_900_000_000, using: &generator)
      var cursor = start
      for _ in 0..<3 {
        let expected = reference(cron, after: cursor)
        let actual = cron.nextOccurrence(after: cursor, in: utc)
        #expect(actual == expected, "\(text) after \(cursor)")
        guard let actual else { break }
        cursor = actual
      }
      checked += 1
    }
  }

  @Test(arguments: [
    ("Europe/Berlin", "30 2 * * *"), ("America/New_York", "30 1 * * *"), ("America/New_York", "30 2 * * *"),
  ])
  func aFixedTimeRunsOnEveryDateOfTheYearOnce(zoneName: String, cron: String) throws {
    let zone = zone(zoneName)
    let daily = try CronExpression(cron)
    var cursor = zone.resolve(LocalDateTime(2026, 1, 1)).instant
    var days: [Int64] = []
    for _ in 0..<365 {
      let next = try #require(daily.nextOccurrence(after: cursor, in: zone))
      days.append(zone.localTime(at: next).dayNumber)
      cursor = next
    }
    // Every date of 2026 exactly once, in order, through both clock changes.
    #expect(days == Array(LocalDateTime(2026, 1, 1).dayNumber..<LocalDateTime(2027, 1, 1).dayNumber))
  }

  @Test func aYearInBerlinQuartersByTheClock() throws {
    let start = instant(2026, 1, 1, 0, 0, offset: 3600)
    var cursor = start

    let quarters = try CronExpression("*/15 * * * *")
    var count = 0
    while cursor < instant(2027, 1, 1, 0, 0, offset: 3600) {
      let next = try #require(quarters.nextOccurrence(after: cursor, in: berlin))
      #expect(next - cursor == 900, "after \(cursor)")
      cursor = next
      count += 1
    }
    #expect(count == 365 * 96)
  }
}
