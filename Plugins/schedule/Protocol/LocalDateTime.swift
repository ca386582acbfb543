/// A wall-clock date and time with no zone attached (proleptic Gregorian calendar), and the
/// calendar arithmetic the schedules need: days since 1970, weekdays, month lengths. Plain
/// integers, so the cron search does not depend on a calendar library.
public struct LocalDateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
  public var year: Int
  public var month: Int
  public var day: Int
  public var hour: Int
  public var minute: Int
  public var second: Int

  public init(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) {
    self.year = year
    self.month = month
    self.day = day
    self.hour = hour
    self.minute = minute
    self.second = second
  }

  /// The wall time `seconds` after 1970-01-01 00:00 (seconds of local time, not an instant).
  public init(localSeconds seconds: Int64) {
    let days = Self.floorDivide(seconds, 86400)
    let rest = Int(seconds - days * 86400)
    let date = Self.civil(fromDays: days)
    self.init(date.year, date.month, date.day, rest / 3600, rest % 3600 / 60, rest % 60)
  }

  /// Seconds of wall time since 1970-01-01 00:00, as if the zone were UTC.
  public var localSeconds: Int64 {
    Self.days(year: year, month: month, day: day) * 86400 + Int64(hour * 3600 + minute * 60 + second)
  }

  /// Days since 1970-01-01 of this date.
  public var dayNumber: Int64 { Self.days(year: year, month: month, day: day) }

  /// 0 = Sunday … 6 = Saturday.
  public var weekday: Int { Self.weekday(ofDay: dayNumber) }

  public static func < (a: LocalDateTime, b: LocalDateTime) -> Bool { a.localSeconds < b.localSeconds }

  public var description: String {
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(year)-\(two(month))-\(two(day)) \(two(hour)):\(two(minute))"
      + (second == 0 ? "" : ":\(two(second))")
  }

  // MARK: Calendar arithmetic (Howard Hinnant's days_from_civil and civil_from_days)

  public static func days(year: Int, month: Int, day: Int) -> Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = floorDivide(y, 400)
    let yearOfEra = y - era * 400
    let m = Int64(month)
    let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146097 + dayOfEra - 719468
  }

  public static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
    let z = days + 719468
    let era = floorDivide(z, 146097)
    let dayOfEra = z - era * 146097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
    let month = Int(mp < 10 ? mp + 3 : mp - 9)
    let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    return (year, month, day)
  }

  public static func weekday(ofDay days: Int64) -> Int {
    // 1970-01-01 was a Thursday (4).
    Int((days % 7 + 7 + 4) % 7)
  }

  public static func isLeapYear(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

  public static func daysInMonth(_ month: Int, year: Int) -> Int {
    switch month {
    case 2: isLeapYear(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
}
