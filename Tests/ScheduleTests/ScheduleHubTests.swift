import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The plugin in its own process under `patchbay run`: one-shot triggers a few seconds ahead
/// travel a route to the example-swift probe, and neither a hub restart nor a crash of the
/// plugin's process fires them again; a saved state from before a downtime is caught up or
/// skipped by policy. `patchbay check` names bad config by file and key.
@Suite(.serialized) struct ScheduleHubTests {
  func recorded(_ hub: HubUnderTest) -> [String] { hub.lines("probe.jsonl") }

  /// An RFC 3339 UTC time `seconds` from now, whole seconds.
  func utc(inSeconds seconds: Double) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: Date().addingTimeInterval(seconds))
  }

  @Test func oneShotsReachAConsumerOnceAcrossAHubRestartAndAPluginCrash() throws {
    let hub = try HubUnderTest("patchbay-schedule", plugins: ["schedule", "example-swift"])
    let at = utc(inSeconds: 4)
    let later = utc(inSeconds: 6)
    try hub.writeConfig(
      HubTOML()
        .instance("clock", plugin: "schedule", ["time_zone": "Europe/Berlin"])
        // Should the hub start slower than 4 s, the alarm fires late, still once.
        .arrayTable(
          "instances.clock.triggers", ["name": "alarm", "at": "\(at)", "catch_up": "once", "max_late": "5 min"]
        )
        // The timer is re-armed after the first firing.
        .arrayTable("instances.clock.triggers", ["name": "snooze", "at": "\(later)", "catch_up": "once"])
        .arrayTable("instances.clock.triggers", ["name": "morning", "cron": "30 6 * * mon-fri"])
        .probe(record: hub.path + "/probe.jsonl", ports: [.event("alarm", "trigger"), .event("snooze", "trigger")])
        .routes(["clock.alarm": "probe.alarm", "clock.snooze": "probe.snooze"]))
    try hub.start()
    try eventually("both triggers at the probe; log:\n\(hub.log)", within: 90) { recorded(hub).count >= 2 }
    #expect(
      recorded(hub) == [#"{"port":"alarm","value":"trigger"}"#, #"{"port":"snooze","value":"trigger"}"#])
    try hub.process?.waitForLine(containing: "alarm: fired for", within: 30)
    let saved = try #require(
      hub.savedState(instance: "clock", file: "schedule.json")?["triggers"] as? [String: [String: Any]])
    #expect(saved["alarm"]?["rule"] as? String == "at \(at)")
    #expect(saved["morning"]?["rule"] as? String == "cron 30 6 * * mon-fri")
    #expect(saved["alarm"]?["last_fired"] != nil)
    #expect(saved["morning"]?["last_fired"] == nil)

    // Restarted, the hub settles the one-shot as done: no second trigger.
    try hub.stop()
    try hub.start()
    try hub.process?.waitForLine(containing: "alarm (at \(at)): no further occurrence", within: 60)
    try hub.process?.waitForLine(containing: "morning (cron 30 6 * * mon-fri): next at", within: 60)
    try hub.process?.waitForLine(containing: "snooze (at \(later)): no further occurrence", within: 60)
    #expect(recorded(hub).count == 2)
    #expect(!hub.log.contains("alarm: fired"))
    #expect(!hub.log.contains("snooze: fired"))

    // A crash of the plugin's process: the supervisor restarts it, and it does not fire again.
    let victim = try #require(try hub.pid(of: "clock"))
    kill(victim, SIGKILL)
    try hub.waitForNewProcess(of: "clock", replacing: victim, what: "a new clock process", within: 60)
    try eventually("the restarted instance's plan; log:\n\(hub.log)", within: 60) {
      (hub.process?.lines ?? []).filter { $0.contains("snooze (at \(later)): no further occurrence") }.count >= 2
    }
    try hub.process?.waitForLine(containing: "morning (cron 30 6 * * mon-fri): next at", within: 60)
    #expect(recorded(hub).count == 2)
    #expect(!hub.log.contains(": fired"))
    try hub.stop()
  }

  @Test func afterDowntimeOnceCatchesUpAndSkipOnlyLogs() throws {
    let hub = try HubUnderTest("patchbay-schedule", plugins: ["schedule", "example-swift"])
    // As if the hub had stopped an hour ago, before both triggers' time five minutes ago.
    let at = utc(inSeconds: -300)
    let stoppedAt = Int64(Date().timeIntervalSince1970) - 3600
    try hub.directory.write(
      "state/instances/clock/schedule.json",
      """
      {"triggers": {"late": {"handled_through": \(stoppedAt), "rule": "at \(at)"},
                    "skipped": {"handled_through": \(stoppedAt), "rule": "at \(at)"}}}
      """)
    try hub.writeConfig(
      HubTOML()
        .instance("clock", plugin: "schedule")
        .arrayTable(
          "instances.clock.triggers", ["name": "late", "at": "\(at)", "catch_up": "once", "max_late": "10 min"]
        )
        .arrayTable("instances.clock.triggers", ["name": "skipped", "at": "\(at)"])
        .probe(record: hub.path + "/probe.jsonl", ports: [.event("late", "trigger"), .event("skipped", "trigger")])
        .routes(["clock.late": "probe.late", "clock.skipped": "probe.skipped"]))
    try hub.start()
    try hub.process?.waitForLine(containing: "late (at \(at)): catching up the occurrence of", within: 60)
    try hub.process?.waitForLine(containing: "skipped (at \(at)): missed the occurrence of", within: 60)
    try eventually("the caught-up trigger at the probe; log:\n\(hub.log)", within: 60) {
      recorded(hub).contains(#"{"port":"late","value":"trigger"}"#)
    }
    #expect(hub.log.contains("not fired (catch_up = \"skip\")"))
    #expect(hub.log.contains("late: fired for"))
    #expect(!recorded(hub).contains { $0.contains("skipped") })
    // Settled: the saved state has moved past both.
    let saved = try #require(
      hub.savedState(instance: "clock", file: "schedule.json")?["triggers"] as? [String: [String: Any]])
    #expect(((saved["late"]?["handled_through"] as? NSNumber)?.int64Value ?? 0) > stoppedAt + 3000)
    try hub.stop()
  }

  func check(_ clock: String) throws -> (status: Int32, output: String, file: String) {
    try HubUnderTest.checkInstance("clock", plugin: "schedule", clock)
  }

  @Test func checkNamesABadCronFieldByFileAndKey() throws {
    let result = try check("[[instances.clock.triggers]]\nname = \"morning\"\ncron = \"30 25 * * mon-fri\"\n")
    #expect(result.status != 0)
    #expect(result.output.contains(result.file))
    #expect(result.output.contains("instances.clock"))
    #expect(result.output.contains("triggers.0.cron: hour field '25': 25 is out of range 0-23"), "\(result.output)")
  }

  @Test func checkNamesAMisspeltKeyAnUnknownZoneAndSunWithoutAPlace() throws {
    let typo = try check("[[instances.clock.triggers]]\nname = \"a\"\ncron = \"0 7 * * *\"\ncatchup = \"once\"\n")
    #expect(typo.status != 0)
    #expect(
      typo.output.contains("unknown key 'triggers.0.catchup' (did you mean 'triggers.0.catch_up'?)"), "\(typo.output)")
    let zone = try check(
      "time_zone = \"Europe/Berln\"\n[[instances.clock.triggers]]\nname = \"a\"\ncron = \"0 7 * * *\"\n")
    #expect(zone.status != 0)
    #expect(zone.output.contains("time_zone 'Europe/Berln' is not a zone"), "\(zone.output)")
    let sun = try check("[[instances.clock.triggers]]\nname = \"a\"\nsun = \"sunset\"\n")
    #expect(sun.status != 0)
    #expect(sun.output.contains("triggers.0.sun needs the instance's latitude and longitude"), "\(sun.output)")
  }

  @Test func checkAcceptsAGoodConfig() throws {
    let result = try check(
      """
      latitude = 52.52
      longitude = 13.40
      [[instances.clock.triggers]]
      name = "lights_on"
      sun = "sunset"
      offset = "-30 min"
      """)
    #expect(result.status == 0, "\(result.output)")
  }
}
