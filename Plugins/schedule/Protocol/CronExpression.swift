/// A five-field cron expression (minute hour day-of-month month day-of-week), read like
/// Vixie cron: names (jan…dec, sun…sat), ranges, lists, steps, and when both day fields are
/// restricted a day matches if either does.
///
/// Times are wall-clock times in a zone. Across daylight-saving changes, an expression with a
/// fixed hour runs once a day as planned: a time that the spring-forward gap skips runs at the
/// end of the gap (02:30 becomes 03:00), a time that the fall-back overlap repeats runs at its
/// first occurrence only. An expression whose hour field is `*` runs by the clock, as in Vixie
/// cron: its times in the gap do not exist and those in the overlap run twice (every quarter
/// of an hour stays every quarter of an hour).
public struct CronExpression: Sendable, Hashable, CustomStringConvertible {
  public let minutes: CronField
  public let hours: CronField
  public let daysOfMonth: CronField
  public let months: CronField
  public let daysOfWeek: CronField
  public let description: String

  public init(_ text: String) throws(CronError) {
    let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    guard fields.count == 5 else {
      throw CronError(
        nil, text,
        "cron '\(text)' has \(fields.count) field\(fields.count == 1 ? "" : "s"); "
          + "it needs 5: minute hour day-of-month month day-of-week, like \"30 6 * * mon-fri\"")
    }
    minutes = try CronField(fields[0], kind: .minute)
    hours = try CronField(fields[1], kind: .hour)
    daysOfMonth = try CronField(fields[2], kind: .dayOfMonth)
    months = try CronField(fields[3], kind: .month)
    daysOfWeek = try CronField(fields[4], kind: .dayOfWeek)
    description = fields.joined(separator: " ")
    try Self.checkThatSomeDayMatches(daysOfMonth, fields[2], months, fields[3], daysOfWeek)
  }

  /// Whether the expression allows this calendar day.
  public func matches(year: Int, month: Int, day: Int, weekday: Int) -> Bool {
    guard months.contains(month) else { return false }
    let dayOfMonth = daysOfMonth.contains(day)
    let dayOfWeek = daysOfWeek.contains(weekday)
    switch (daysOfMonth.isRestricted, daysOfWeek.isRestricted) {
    case (true, true): return dayOfMonth || dayOfWeek
    case (true, false): return dayOfMonth
    case (false, true): return dayOfWeek
    case (false, false): return true
    }
  }

  /// The first instant strictly after `instant` at which the expression fires in `zone`; nil
  /// only if none within eight years (which the parser's check rules out).
  public func nextOccurrence(after instant: Int64, in zone: ZoneRules) -> Int64? {
    let start = zone.localTime(at: instant)
    // A wall time at or before the start's, less any offset change in the days around it,
    // cannot fall after the start: skip those without asking the zone.
    let offset = zone.offset(at: instant)
    let shift = max(
      abs(zone.offset(at: instant - 2 * 86400) - offset), abs(zone.offset(at: instant + 2 * 86400) - offset))
    let latestSkippable = start.localSeconds - shift
    let hourList = hours.sortedValues
    let minuteList = minutes.sortedValues
    // Around a fall-back, a later wall time's first instant can come before an earlier wall
    // time's second one: keep the earliest candidate until the wall times are past it by the shift.
    var best: Int64?
    var lastWallToCompare = Int64.max
    var dayNumber = start.dayNumber - 1
    let lastDay = dayNumber + 8 * 366
    while dayNumber <= lastDay {
      defer { dayNumber += 1 }
      let date = LocalDateTime.civil(fromDays: dayNumber)
      guard
        matches(
          year: date.year, month: date.month, day: date.day, weekday: LocalDateTime.weekday(ofDay: dayNumber))
      else { continue }
      for hour in hourList {
        for minute in minuteList {
          let wall = LocalDateTime(date.year, date.month, date.day, hour, minute)
          guard wall.localSeconds > latestSkippable else { continue }
          guard wall.localSeconds <= lastWallToCompare else { return best }
          if let candidate = firstInstant(of: zone.resolve(wall), after: instant) {
            best = min(best ?? candidate, candidate)
            if lastWallToCompare == .max { lastWallToCompare = wall.localSeconds + shift }
          }
        }
      }
    }
    return best
  }

  /// The instant after `instant` that a wall time stands for (see the type's daylight-saving
  /// rules), or nil.
  private func firstInstant(of resolution: ZoneRules.Resolution, after instant: Int64) -> Int64? {
    switch (resolution, hours.isRestricted) {
    case (.unique(let at), _), (.repeated(let at, _), true), (.skipped(let at), true):
      return at > instant ? at : nil
    case (.repeated(let first, let second), false):
      return first > instant ? first : second > instant ? second : nil
    case (.skipped, false):
      return nil
    }
  }

  /// Refuses day fields that can never match together ("0 0 30 feb *"), which would
  /// otherwise be accepted and never fire.
  private static func checkThatSomeDayMatches(
    _ days: CronField, _ dayText: String, _ months: CronField, _ monthText: String, _ weekdays: CronField
  ) throws(CronError) {
    guard days.isRestricted, !weekdays.isRestricted else { return }
    for month in months.sortedValues {
      let longest = LocalDateTime.daysInMonth(month, year: 2028)
      if days.sortedValues.contains(where: { $0 <= longest }) { return }
    }
    throw CronError(.dayOfMonth, dayText, "never occurs in month field '\(monthText)' (no such date)")
  }
}
