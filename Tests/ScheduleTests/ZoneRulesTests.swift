import ScheduleProtocol
import Testing

/// Wall times placed in a zone: ordinary, skipped by spring-forward, repeated by fall-back.
struct ZoneRulesTests {
  @Test func resolvesTheThreeKindsOfWallTime() {
    #expect(
      berlin.resolve(LocalDateTime(2026, 11, 24, 12, 0)) == .unique(instant(2026, 11, 24, 11, 0, offset: 0)))
    #expect(
      berlin.resolve(LocalDateTime(2026, 3, 29, 2, 30)) == .skipped(gapEnd: instant(2026, 3, 29, 1, 0, offset: 0)))
    #expect(
      berlin.resolve(LocalDateTime(2026, 10, 25, 2, 30))
        == .repeated(instant(2026, 10, 25, 0, 30, offset: 0), instant(2026, 10, 25, 1, 30, offset: 0)))
    #expect(
      newYork.resolve(LocalDateTime(2026, 11, 1, 1, 30))
        == .repeated(instant(2026, 11, 1, 5, 30, offset: 0), instant(2026, 11, 1, 6, 30, offset: 0)))
  }

  @Test func calendarArithmetic() {
    #expect(LocalDateTime(1970, 1, 1).dayNumber == 0)
    #expect(LocalDateTime(2026, 11, 24).weekday == 2)  // a Tuesday
    #expect(LocalDateTime(2000, 2, 29).dayNumber == 11016)
    #expect(
      LocalDateTime(localSeconds: LocalDateTime(2028, 2, 29, 23, 59, 58).localSeconds).description
        == "2028-02-29 23:59:58")
    #expect(LocalDateTime(localSeconds: -1).description == "1969-12-31 23:59:59")
  }

  @Test func unknownZonesAreNil() {
    #expect(ZoneRules(identifier: "Europe/Berlinn") == nil)
    #expect(ZoneRules(identifier: "Mars/Olympus_Mons") == nil)
  }
}
