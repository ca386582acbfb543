import ScheduleProtocol
import Testing

/// Cron expressions: what each field accepts, and errors that name the field and the problem.
struct CronParsingTests {
  @Test func namesRangesListsAndSteps() throws {
    let cron = try CronExpression("*/15 6-8,20 1-5/2 jan-MAR,dec mon-fri")
    #expect(cron.minutes.sortedValues == [0, 15, 30, 45])
    #expect(cron.hours.sortedValues == [6, 7, 8, 20])
    #expect(cron.daysOfMonth.sortedValues == [1, 3, 5])
    #expect(cron.months.sortedValues == [1, 2, 3, 12])
    #expect(cron.daysOfWeek.sortedValues == [1, 2, 3, 4, 5])
    let everyMinute = try CronExpression("* * * * *")
    #expect(cron.minutes.isRestricted && !everyMinute.minutes.isRestricted)
  }

  @Test func sundayIsZeroOrSevenAndAStepRunsToTheEnd() throws {
    #expect(try CronExpression("0 0 * * 7").daysOfWeek.sortedValues == [0])
    #expect(try CronExpression("0 0 * * 5-7").daysOfWeek.sortedValues == [0, 5, 6])
    #expect(try CronExpression("50/5 0 * * *").minutes.sortedValues == [50, 55])
    #expect(try CronExpression("0 0 * * */2").daysOfWeek.sortedValues == [0, 2, 4, 6])
  }

  @Test(arguments: [
    ("30 6 * *", "cron '30 6 * *' has 4 fields; it needs 5: minute hour day-of-month month day-of-week"),
    ("61 6 * * *", "minute field '61': 61 is out of range 0-59"),
    ("0 24 * * *", "hour field '24': 24 is out of range 0-23"),
    ("0 0 0 * *", "day-of-month field '0': 0 is out of range 1-31"),
    ("0 0 * 13 *", "month field '13': 13 is out of range 1-12"),
    ("0 0 * * 8", "day-of-week field '8': 8 is out of range 0-7"),
    ("0 0 * * fry", "day-of-week field 'fry': 'fry' is not a number or a name like mon"),
    ("0 0 * jnu *", "month field 'jnu': 'jnu' is not a number or a name like jan"),
    ("*/0 * * * *", "minute field '*/0': step '0' in '*/0' must be a whole number above 0"),
    ("5-1 * * * *", "minute field '5-1': range '5-1' runs backwards (5 is after 1)"),
    ("1,,2 * * * *", "minute field '1,,2': has an empty list entry"),
    ("x * * * *", "minute field 'x': 'x' is not a number"),
    ("0 0 30 feb *", "day-of-month field '30': never occurs in month field 'feb' (no such date)"),
    ("0 0 31 4,6 *", "day-of-month field '31': never occurs in month field '4,6' (no such date)"),
  ])
  func refusesNamingTheField(text: String, expected: String) {
    do {
      _ = try CronExpression(text)
      Issue.record("\(text) was accepted")
    } catch {
      #expect(error.description.contains(expected), "\(text) -> \(error)")
    }
  }

  @Test func aDayThatOnlyALeapYearHasIsAccepted() throws {
    _ = try CronExpression("0 0 29 feb *")
    // A weekday makes any day possible (the OR rule).
    _ = try CronExpression("0 0 30 feb mon")
  }
}
