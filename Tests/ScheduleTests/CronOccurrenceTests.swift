import ScheduleProtocol
import Testing

/// When a cron expression fires, including across daylight-saving changes.
struct CronOccurrenceTests {
  let cet: Int64 = 3600
  let cest: Int64 = 7200

  @Test func weekdayMornings() throws {
    // Friday 2026-11-20 07:00 CET: next Friday is past, so Monday and Tuesday.
    let start = instant(2026, 11, 20, 7, 0, offset: cet)
    #expect(
      try occurrences("30 6 * * mon-fri", after: start, in: berlin, count: 3) == [
        "2026-11-23 06:30 +01:00", "2026-11-24 06:30 +01:00", "2026-11-25 06:30 +01:00",
      ])
  }

  @Test func strictlyAfterAndSteps() throws {
    let start = instant(2026, 11, 24, 12, 15, offset: cet)
    #expect(
      try occurrences("*/15 * * * *", after: start, in: berlin, count: 2) == [
        "2026-11-24 12:30 +01:00", "2026-11-24 12:45 +01:00",
      ])
  }

  @Test func bothDayFieldsRestrictedMeansEither() throws {
    // The 13th, or any Friday: 2026-11-13 is itself a Friday; then Fri 20th, Fri 27th, Fri 4 Dec, …
    let start = instant(2026, 11, 1, 0, 0, offset: cet)
    #expect(
      try occurrences("0 9 13 * fri", after: start, in: berlin, count: 5) == [
        "2026-11-06 09:00 +01:00", "2026-11-13 09:00 +01:00", "2026-11-20 09:00 +01:00",
        "2026-11-27 09:00 +01:00", "2026-12-04 09:00 +01:00",
      ])
    // Only the day of month restricted: the 13th only.
    #expect(
      try occurrences("0 9 13 * *", after: start, in: berlin, count: 2) == [
        "2026-11-13 09:00 +01:00", "2026-12-13 09:00 +01:00",
      ])
  }

  @Test func leapDayWaitsForTheLeapYear() throws {
    let start = instant(2026, 3, 1, 0, 0, offset: cet)
    #expect(try occurrences("0 12 29 feb *", after: start, in: berlin, count: 1) == ["2028-02-29 12:00 +01:00"])
  }

  // MARK: Daylight saving, Europe/Berlin: 2026-03-29 02:00 → 03:00, 2026-10-25 03:00 → 02:00.

  @Test func springForwardRunsASkippedTimeOnceAtTheEndOfTheGap() throws {
    let start = instant(2026, 3, 28, 12, 0, offset: cet)
    #expect(
      try occurrences("30 2 * * *", after: start, in: berlin, count: 3) == [
        "2026-03-29 03:00 +02:00", "2026-03-30 02:30 +02:00", "2026-03-31 02:30 +02:00",
      ])
    // Several skipped times still run once.
    #expect(
      try occurrences("0,20,40 2 * * *", after: instant(2026, 3, 29, 0, 0, offset: cet), in: berlin, count: 2) == [
        "2026-03-29 03:00 +02:00", "2026-03-30 02:00 +02:00",
      ])
    // A time after the gap is untouched.
    #expect(
      try occurrences("30 3 * * *", after: start, in: berlin, count: 1) == ["2026-03-29 03:30 +02:00"])
  }

  @Test func fallBackRunsARepeatedTimeOnceAtItsFirstOccurrence() throws {
    let start = instant(2026, 10, 24, 12, 0, offset: cest)
    #expect(
      try occurrences("30 2 * * *", after: start, in: berlin, count: 3) == [
        "2026-10-25 02:30 +02:00", "2026-10-26 02:30 +01:00", "2026-10-27 02:30 +01:00",
      ])
    // Asked during the repeated hour (02:10 CET, after the first 02:30 has run): not again today.
    let secondPass = instant(2026, 10, 25, 2, 10, offset: cet)
    #expect(try occurrences("30 2 * * *", after: secondPass, in: berlin, count: 1) == ["2026-10-26 02:30 +01:00"])
  }

  @Test func anHourlyExpressionRunsByTheClockAcrossBothChanges() throws {
    // Hour field `*`: the gap's times do not exist, the overlap's run twice (Vixie cron).
    #expect(
      try occurrences("30 * * * *", after: instant(2026, 3, 29, 1, 0, offset: cet), in: berlin, count: 3) == [
        "2026-03-29 01:30 +01:00", "2026-03-29 03:30 +02:00", "2026-03-29 04:30 +02:00",
      ])
    #expect(
      try occurrences("30 * * * *", after: instant(2026, 10, 25, 1, 0, offset: cest), in: berlin, count: 4) == [
        "2026-10-25 01:30 +02:00", "2026-10-25 02:30 +02:00", "2026-10-25 02:30 +01:00", "2026-10-25 03:30 +01:00",
      ])
  }

  @Test func everyQuarterHourStaysAQuarterHourThroughTheRepeatedHour() throws {
    // Found by the property test: 02:00's second occurrence must not jump ahead of 02:15's first.
    #expect(
      try occurrences("*/15 * * * *", after: instant(2026, 10, 25, 1, 50, offset: cest), in: berlin, count: 9) == [
        "2026-10-25 02:00 +02:00", "2026-10-25 02:15 +02:00", "2026-10-25 02:30 +02:00", "2026-10-25 02:45 +02:00",
        "2026-10-25 02:00 +01:00", "2026-10-25 02:15 +01:00", "2026-10-25 02:30 +01:00", "2026-10-25 02:45 +01:00",
        "2026-10-25 03:00 +01:00",
      ])
    #expect(
      try occurrences("*/15 * * * *", after: instant(2026, 3, 29, 1, 40, offset: cet), in: berlin, count: 2) == [
        "2026-03-29 01:45 +01:00", "2026-03-29 03:00 +02:00",
      ])
  }

  // MARK: America/New_York: 2026-03-08 02:00 EST → 03:00 EDT, 2026-11-01 02:00 EDT → 01:00 EST.

  @Test func newYorkSpringForwardAndFallBack() throws {
    let est: Int64 = -5 * 3600
    let edt: Int64 = -4 * 3600
    #expect(
      try occurrences("15 2 * * *", after: instant(2026, 3, 7, 12, 0, offset: est), in: newYork, count: 2) == [
        "2026-03-08 03:00 -04:00", "2026-03-09 02:15 -04:00",
      ])
    #expect(
      try occurrences("30 1 * * *", after: instant(2026, 10, 31, 12, 0, offset: edt), in: newYork, count: 2) == [
        "2026-11-01 01:30 -04:00", "2026-11-02 01:30 -05:00",
      ])
    // Sunday-only job on the change day.
    #expect(
      try occurrences("30 1 * * sun", after: instant(2026, 10, 31, 12, 0, offset: edt), in: newYork, count: 2) == [
        "2026-11-01 01:30 -04:00", "2026-11-08 01:30 -05:00",
      ])
  }
}
