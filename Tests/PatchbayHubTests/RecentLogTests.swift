import Foundation
import Testing

@testable import PatchbayCore

/// The hub's recent log for the control socket's `log`: bounded, newest kept, filtered by label
/// and by least severe level.
@Suite struct RecentLogTests {
  func record(_ number: Int, level: String = "info", label: String = "hub") -> LogRecord {
    LogRecord(time: "2026-11-24T12:00:00Z", level: level, label: label, message: "line \(number)")
  }

  @Test func keepsOnlyTheNewestLines() {
    let log = RecentLog(capacity: 3)
    for number in 1...5 { log.append(record(number)) }
    #expect(log.last(10).map(\.message) == ["line 3", "line 4", "line 5"])
    #expect(log.last(2).map(\.message) == ["line 4", "line 5"])
    #expect(log.last(0).isEmpty)
  }

  @Test func filtersByInstanceAndLevel() {
    let log = RecentLog(capacity: 10)
    log.append(record(1, level: "debug", label: "lamp"))
    log.append(record(2, level: "warning", label: "lamp"))
    log.append(record(3, level: "error", label: "hub"))
    log.append(record(4, level: "info", label: "lamp"))
    #expect(log.last(10, instance: "lamp").map(\.message) == ["line 1", "line 2", "line 4"])
    #expect(log.last(10, level: "warning").map(\.message) == ["line 2", "line 3"])
    #expect(log.last(10, instance: "lamp", level: "info").map(\.message) == ["line 2", "line 4"])
    // An unknown level name filters nothing out rather than everything.
    #expect(log.last(10, level: "loud").count == 4)
  }

  @Test func responsesCarryTheProtocolVersion() throws {
    let data = try JSONEncoder().encode(ControlResponse(ok: true))
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.contains(#""protocolVersion":2"#), "\(text)")
    // An answer from an older hub (no such key) still decodes.
    let old = try JSONDecoder().decode(ControlResponse.self, from: Data(#"{"ok":true,"message":"hi"}"#.utf8))
    #expect(old.protocolVersion == nil)
  }
}
