import Foundation
import PatchbayTestSupport
import ScheduleProtocol
import Testing

/// The system tz database read directly (TZif files and their POSIX footer rules), checked
/// against the C library's reading of the same files (`zdump -v`, glibc's: every transition
/// from 2000 to 2100 and the second before it) for zones with every kind of rule. Not against
/// Foundation: its offsets come from the tz data built into the toolchain's ICU, which an
/// up-to-date system's tzdata outgrows (Morocco's 2026 rules).
struct TZDatabaseTests {
  /// zdump's lines for one zone: (UTC seconds, offset in effect then), in time order.
  static func transitions(_ name: String) throws -> [(instant: Int64, offset: Int64)] {
    let result = try runProgram("/usr/bin/zdump", ["-v", "-c", "2000,2100", name])
    try #require(result.status == 0, "zdump: \(result.output)")
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    var found: [(instant: Int64, offset: Int64)] = []
    // "Africa/Casablanca  Sun Feb 15 01:59:59 2026 UT = Sun Feb 15 02:59:59 2026 +01 isdst=0 gmtoff=3600"
    for line in result.output.split(separator: "\n") {
      guard let equals = line.range(of: " UT = "), let gmtoff = line.range(of: "gmtoff=") else { continue }
      let fields = line[..<equals.lowerBound].split(separator: " ").suffix(5).map(String.init)
      let clock = fields[3].split(separator: ":").compactMap { Int($0) }
      guard fields.count == 5, let month = months.firstIndex(of: fields[1]), let day = Int(fields[2]),
        let year = Int(fields[4]), clock.count == 3, let offset = Int64(line[gmtoff.upperBound...])
      else {
        Issue.record("unexpected zdump line: \(line)")
        continue
      }
      let instant = LocalDateTime(year, month + 1, day, clock[0], clock[1], clock[2]).localSeconds
      found.append((instant, offset))
    }
    return found
  }

  @Test(arguments: [
    "Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "Pacific/Auckland",
    "America/St_Johns", "Asia/Kolkata", "America/Sao_Paulo", "Europe/Dublin", "Africa/Casablanca", "Asia/Tehran",
    "Pacific/Chatham", "America/Santiago", "Etc/UTC", "UTC",
  ])
  func offsetsAgreeWithTheCLibraryFrom2000To2100(name: String) throws {
    let database = try #require(TZifZone(identifier: name), "no \(name) in /usr/share/zoneinfo")
    let transitions = try Self.transitions(name)
    var disagreements: [String] = []
    // Each transition and the second before it.
    for (instant, offset) in transitions where disagreements.count < 5 {
      let actual = database.offset(at: instant)
      if actual != offset {
        disagreements.append("\(LocalDateTime(localSeconds: instant)) UTC: \(actual) vs \(offset)")
      }
    }
    // And every 25 hours in between, so each hour of the day comes round: the offset of the
    // latest line at or before the instant (before the first, the first's; a zone without
    // transitions, its fixed offset, which Foundation knows).
    let fixed = Int64(try #require(TimeZone(identifier: name)).secondsFromGMT())
    var instant = LocalDateTime(2000, 1, 1).localSeconds
    let end = LocalDateTime(2100, 1, 1).localSeconds
    var next = 0
    while instant < end, disagreements.count < 5 {
      while next < transitions.count, transitions[next].instant <= instant { next += 1 }
      let expected = transitions.isEmpty ? fixed : transitions[max(next - 1, 0)].offset
      let actual = database.offset(at: instant)
      if actual != expected {
        disagreements.append("\(LocalDateTime(localSeconds: instant)) UTC: \(actual) vs \(expected)")
      }
      instant += 25 * 3600
    }
    #expect(!transitions.isEmpty || ["Asia/Kolkata", "Etc/UTC", "UTC"].contains(name), "zdump found no transitions")
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
