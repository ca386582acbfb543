import Foundation
import ScheduleProtocol
import Testing

/// Config mistakes are refused naming the key; a good config becomes triggers; state is saved
/// atomically.
struct ScheduleConfigTests {
  func message(_ json: String) -> String {
    do {
      _ = try ScheduleConfig(json: json)
      return "accepted"
    } catch {
      return "\(error)"
    }
  }

  @Test func aFullConfig() throws {
    let config = try ScheduleConfig(
      json: """
        {"latitude": 52.52, "longitude": 13, "time_zone": "Europe/Berlin", "triggers": [
          {"name": "weekday_morning", "cron": "30 6 * * mon-fri"},
          {"name": "lights_on", "sun": "sunset", "offset": "-30 min", "catch_up": "once", "max_late": "10 min"},
          {"name": "party.start", "at": "2026-12-31T23:00:00+01:00"}]}
        """)
    #expect(config.zone.identifier == "Europe/Berlin")
    #expect(config.triggers.map(\.name) == ["weekday_morning", "lights_on", "party.start"])
    #expect(config.triggers[1].catchUp == .once && config.triggers[1].maxLate == 600)
    #expect(config.triggers[1].rule.description == "sun sunset -30 min")
    #expect(config.triggers[0].catchUp == .skip)
  }

  @Test func theSystemZoneByDefault() throws {
    let config = try ScheduleConfig(json: #"{"triggers": [{"name": "a", "cron": "* * * * *"}]}"#)
    #expect(config.zone.identifier == ZoneRules.system.identifier)
  }

  @Test(arguments: [
    (
      #"{"triggers": [{"name": "a", "cron": "61 * * * *"}]}"#,
      "triggers.0.cron: minute field '61': 61 is out of range 0-59"
    ),
    (
      #"{"latitude": 95, "longitude": 0, "triggers": [{"name": "a", "cron": "* * * * *"}]}"#,
      "latitude must be between -90 and 90 degrees"
    ),
    (#"{"latitude": 52, "triggers": [{"name": "a", "cron": "* * * * *"}]}"#, "latitude and longitude go together"),
    (
      #"{"time_zone": "Europe/Berlinn", "triggers": [{"name": "a", "cron": "* * * * *"}]}"#,
      "time_zone 'Europe/Berlinn' is not a zone of the tz database"
    ),
    (#"{"triggers": [{"name": "a", "sun": "sunset"}]}"#, "triggers.0.sun needs the instance's latitude and longitude"),
    (
      #"{"latitude": 1, "longitude": 1, "triggers": [{"name": "a", "sun": "noon"}]}"#,
      #"triggers.0.sun must be "sunrise", "sunset", "dawn", "dusk", not "noon""#
    ),
    (
      #"{"latitude": 1, "longitude": 1, "triggers": [{"name": "a", "sun": "dusk", "offset": "soon"}]}"#,
      "triggers.0.offset: 'soon' is not a duration"
    ),
    (#"{"triggers": [{"name": "a", "cron": "* * * * *", "offset": "5 min"}]}"#, "triggers.0.offset belongs with sun"),
    (
      #"{"triggers": [{"name": "a", "cron": "* * * * *", "crn": "x"}]}"#,
      "unknown key 'triggers.0.crn' (did you mean 'triggers.0.cron'?)"
    ),
    (#"{"latitud": 1, "triggers": []}"#, "unknown key 'latitud' (did you mean 'latitude'?)"),
    (#"{"triggers": []}"#, "missing required key 'triggers'"),
    (#"{"triggers": [{"cron": "* * * * *"}]}"#, "missing required key 'triggers.0.name'"),
    (#"{"triggers": [{"name": "a"}]}"#, "triggers.0 ('a') needs one of cron, sun or at"),
    (
      #"{"triggers": [{"name": "a", "cron": "* * * * *", "at": "2026-01-01T00:00Z"}]}"#,
      "cron, sun and at exclude each other"
    ),
    (
      #"{"triggers": [{"name": "a", "cron": "* * * * *"}, {"name": "a", "cron": "0 * * * *"}]}"#,
      "triggers.1.name: 'a' is used by an earlier trigger"
    ),
    (#"{"triggers": [{"name": "Morning", "cron": "* * * * *"}]}"#, "triggers.0.name 'Morning' must be lowercase"),
    (
      #"{"triggers": [{"name": "a", "cron": "* * * * *", "catch_up": "all"}]}"#,
      #"triggers.0.catch_up must be "skip" or "once", not "all""#
    ),
    (
      #"{"triggers": [{"name": "a", "cron": "* * * * *", "max_late": "-1 min"}]}"#,
      "triggers.0.max_late: '-1 min' must not be negative"
    ),
    (
      #"{"triggers": [{"name": "a", "cron": "* * * * *", "max_late": "2 d"}]}"#,
      "triggers.0.max_late must be at most 1 d, not 2 d"
    ),
    (#"{"triggers": [{"name": "a", "at": "tomorrow"}]}"#, "triggers.0.at: 'tomorrow' has no year"),
    (#"{"triggers": [{"name": "a", "cron": 5}]}"#, "key 'triggers.0.cron' must be a string"),
  ])
  func refusesWithTheKey(json: String, expected: String) {
    let text = message(json)
    #expect(text.contains(expected), "\(json) -> \(text)")
  }

  @Test func stateIsSavedAtomicallyAndReadBack() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schedule-state-\(UUID())").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = StateStore(directory: directory + "/instances/clock")
    #expect(try store.load() == ScheduleState())
    let state = ScheduleState(triggers: ["morning": .init(handledThrough: 1_795_000_000, rule: "cron 30 6 * * *")])
    try store.save(state)
    #expect(try store.load() == state)
    #expect(!FileManager.default.fileExists(atPath: store.path + ".tmp"))
    let text = try String(contentsOfFile: store.path, encoding: .utf8)
    #expect(text.contains("\"handled_through\" : 1795000000"))
  }
}
