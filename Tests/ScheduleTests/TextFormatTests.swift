import ScheduleProtocol
import Testing

/// Durations ("-30 min") and one-shot times ("2026-11-24T12:00:05+01:00") as written in config.
struct TextFormatTests {
  @Test(arguments: [
    ("10 min", Int64(600)), ("-30 min", -1800), ("1 h 30 min", 5400), ("45s", 45), ("+2 hours", 7200),
    ("1d", 86400), (" 90 seconds ", 90),
  ])
  func durations(text: String, seconds: Int64) throws {
    #expect(try DurationText.parse(text, allowNegative: true) == seconds)
  }

  @Test(arguments: [
    ("10", "needs a unit after 10"), ("10 parsecs", "unknown unit 'parsecs'"), ("", "is empty"),
    ("ten min", "is not a duration"),
  ])
  func badDurations(text: String, expected: String) {
    #expect(throws: DurationError.self) { try DurationText.parse(text, allowNegative: true) }
    do {
      _ = try DurationText.parse(text, allowNegative: true)
    } catch {
      #expect(error.description.contains(expected), "\(text) -> \(error)")
    }
  }

  @Test func negativeOnlyWhereAllowed() {
    #expect(throws: DurationError.self) { try DurationText.parse("-5 min", allowNegative: false) }
    #expect(DurationText.format(-1800) == "-30 min")
    #expect(DurationText.format(5400, signed: true) == "+1 h 30 min")
  }

  @Test func oneShotTimes() throws {
    #expect(
      try OneShotTime("2026-11-24T12:00:05+01:00").instant(in: newYork) == instant(2026, 11, 24, 11, 0, 5, offset: 0))
    #expect(
      try OneShotTime("2026-11-24T12:00:05.250Z").instant(in: berlin) == instant(2026, 11, 24, 12, 0, 5, offset: 0))
    #expect(try OneShotTime("2026-11-24T07:00:00-05:00").instant(in: berlin) == instant(2026, 11, 24, 12, 0, offset: 0))
    // Without an offset: wall time in the instance's zone, DST rules as cron.
    #expect(try OneShotTime("2026-11-24 12:00").instant(in: berlin) == instant(2026, 11, 24, 11, 0, offset: 0))
    #expect(try OneShotTime("2026-03-29T02:30").instant(in: berlin) == instant(2026, 3, 29, 1, 0, offset: 0))
  }

  @Test(arguments: [
    ("2026-11-24", "needs 'T' between date and time"), ("2026-02-30T10:00", "is not a real date and time"),
    ("2026-11-24T25:00", "is not a real date and time"), ("2026-11-24T10:00+1", "has no offset hours"),
    ("2026-11-24T10:00 tomorrow", "needs 'Z' or an offset"), ("24.11.2026 10:00", "has no year"),
  ])
  func badOneShotTimes(text: String, expected: String) {
    do {
      _ = try OneShotTime(text)
      Issue.record("\(text) accepted")
    } catch {
      #expect(error.description.contains(expected), "\(text) -> \(error)")
    }
  }
}
