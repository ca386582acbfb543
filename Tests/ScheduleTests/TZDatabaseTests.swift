import Foundation
import ScheduleTiming
import Testing

/// The system tz database read directly (TZif files and their POSIX footer rules), checked
/// against Foundation's offsets for zones with every kind of rule.
struct TZDatabaseTests {
  @Test(arguments: [
    "Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "Pacific/Auckland",
    "America/St_Johns", "Asia/Kolkata", "America/Sao_Paulo", "Europe/Dublin", "Africa/Casablanca", "Asia/Tehran",
    "Pacific/Chatham", "America/Santiago", "Etc/UTC", "UTC",
  ])
  func offsetsAgreeWithFoundationFrom2000To2100(name: String) throws {
    let database = try #require(TZifZone(identifier: name), "no \(name) in /usr/share/zoneinfo")
    let foundation = try #require(TimeZone(identifier: name))
    var disagreements: [String] = []
    // Every 25 hours, so each hour of the day comes round, through the listed transitions and
    // far past them into the footer's rule.
    var instant = LocalDateTime(2000, 1, 1).localSeconds
    let end = LocalDateTime(2100, 1, 1).localSeconds
    while instant < end, disagreements.count < 5 {
      let expected = Int64(foundation.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
      let actual = database.offset(at: instant)
      if actual != expected {
        disagreements.append("\(LocalDateTime(localSeconds: instant)) UTC: \(actual) vs \(expected)")
      }
      instant += 25 * 3600
    }
    #expect(disagreements.isEmpty, "\(name): \(disagreements)")
  }

  @Test func posixRules() throws {
    let berlin = try #require(PosixZoneRule("CET-1CEST,M3.5.0,M10.5.0/3"))
    #expect(berlin.offset(at: instant(2030, 3, 31, 0, 59, offset: 0)) == 3600)
    #expect(berlin.offset(at: instant(2030, 3, 31, 1, 0, offset: 0)) == 7200)
    #expect(berlin.offset(at: instant(2030, 10, 27, 0, 59, offset: 0)) == 7200)
    #expect(berlin.offset(at: instant(2030, 10, 27, 1, 0, offset: 0)) == 3600)
    // Southern hemisphere, half-hour offsets, quoted names.
    let lordHowe = try #require(PosixZoneRule("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0"))
    #expect(lordHowe.offset(at: instant(2030, 1, 1, 0, 0, offset: 0)) == 11 * 3600)
    #expect(lordHowe.offset(at: instant(2030, 7, 1, 0, 0, offset: 0)) == 10 * 3600 + 1800)
    // No rule: the US default; a fixed zone.
    let eastern = try #require(PosixZoneRule("EST5EDT"))
    #expect(eastern.offset(at: instant(2030, 7, 1, 0, 0, offset: 0)) == -4 * 3600)
    #expect(eastern.offset(at: instant(2030, 1, 1, 0, 0, offset: 0)) == -5 * 3600)
    #expect(PosixZoneRule("<-03>3")?.offset(at: 0) == -3 * 3600)
    // Day-of-year forms: J60 is 1 March in any year (here 00:00 at UTC+2: 22:00 UTC on 29 February).
    let julian = try #require(PosixZoneRule("XST-2XDT,J60/0,300"))
    #expect(julian.offset(at: instant(2028, 2, 29, 21, 59, offset: 0)) == 7200)
    #expect(julian.offset(at: instant(2028, 2, 29, 22, 0, offset: 0)) == 3 * 3600)
    for bad in ["", "C-1", "CET", "CET-1CEST,M13.1.0,M10.5.0", "CET-1CEST,M3.5.0", "CET-1CEST,M3.5.0,M10.5.0/x"] {
      #expect(PosixZoneRule(bad) == nil, "\(bad)")
    }
  }

  @Test func namesNotPathsAndUnknownZones() {
    #expect(TZifZone(identifier: "../../etc/passwd") == nil)
    #expect(TZifZone(identifier: "/etc/localtime") == nil)
    #expect(TZifZone(identifier: "Europe/Berlinn") == nil)
    #expect(TZifZone(data: Array("not a zone".utf8)) == nil)
    #expect(
      ZoneRules(identifier: "Europe/Berlin").map { if case .tzDatabase = $0.source { true } else { false } } == true)
  }

  @Test func truncatedFilesAreRefused() throws {
    let data = try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/Europe/Berlin"))
    let bytes = [UInt8](data)
    for length in 0..<bytes.count {
      #expect(TZifZone(data: Array(bytes.prefix(length))) == nil, "cut at \(length) of \(bytes.count)")
    }
    #expect(TZifZone(data: bytes) != nil)
  }

  @Test func theSystemZoneIsRead() {
    let system = ZoneRules.system
    #expect(!system.identifier.isEmpty)
    let now = Int64(Date().timeIntervalSince1970)
    #expect(system.offset(at: now) == Int64(TimeZone.current.secondsFromGMT()))
  }
}
