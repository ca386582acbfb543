import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The plugin in its own process under `patchbay run`, driving two lights played by the
/// example-swift probe: it records every command and mirrors it back as the light's state.
/// Checks capture, spread, rate, a SIGKILL mid-run and the restore with real processes; the
/// same against the Hue simulator is in PartyHueTests.
@Suite(.serialized) struct PartyProbeTests {
  struct Command: Equatable {
    var port: String
    var on: Bool?
    var brightness: Double?
    var hue: Double?
    var saturation: Double?
    var colorTemperature: Double?
  }

  func commands(_ hub: HubUnderTest) -> [Command] {
    let text = (try? String(contentsOfFile: hub.directory.path + "/bulbs.jsonl", encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      guard let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let port = json["port"] as? String, let value = json["value"] as? [String: Any]
      else { return nil }
      let color = value["color"] as? [String: Any]
      return Command(
        port: port, on: value["on"] as? Bool, brightness: (value["brightness"] as? NSNumber)?.doubleValue,
        hue: (color?["hue"] as? NSNumber)?.doubleValue, saturation: (color?["saturation"] as? NSNumber)?.doubleValue,
        colorTemperature: (value["color_temperature"] as? NSNumber)?.doubleValue)
    }
  }

  func startHub(extra: String = "") throws -> HubUnderTest {
    let hub = try HubUnderTest("patchbay-party", plugins: ["party-lights", "example-swift"])
    try hub.writeConfig(
      """
      [instances.party]
      plugin = "party-lights"
      lights = ["lamp1", "lamp2"]
      spread_degrees = 90
      bpm = 600               # 10 steps/s asked; two lights at 10 commands/s allow 5
      light_rate = 10
      \(extra)

      [instances.bulbs]
      plugin = "example-swift"
      record = "\(hub.directory.path)/bulbs.jsonl"
      ports = [{ name = "lamp1", type = "light", kind = "state" }, { name = "lamp2", type = "light", kind = "state" },
               { name = "switch", type = "bool", kind = "state" }]

      # A switch with a retained state, like HomeKit's on.set.
      [[routes]]
      from = "bulbs.switch.out"
      to = "party.run"

      [[routes]]
      from = "party.lamp1.light"
      to = "bulbs.lamp1"
      [[routes]]
      from = "bulbs.lamp1.out"
      to = "party.lamp1.state"
      [[routes]]
      from = "party.lamp2.light"
      to = "bulbs.lamp2"
      [[routes]]
      from = "bulbs.lamp2.out"
      to = "party.lamp2.state"
      """)
    try hub.start()
    return hub
  }

  @Test func capturesRunsSurvivesAKillAndRestores() throws {
    let hub = try startHub()
    // The rate warning names the rate it will run at.
    try hub.process?.waitForLine(containing: "running at 5 steps/s", within: 60)

    // The lights before the party: lamp1 on in a soft blue, lamp2 off (warm white when on).
    try hub.send("bulbs.lamp1.out", #"{"on":true,"brightness":40,"color":{"hue":200,"saturation":30}}"#)
    try hub.send("bulbs.lamp2.out", #"{"on":false,"brightness":70,"color_temperature":300}"#)
    try hub.send("party.run", "true")
    try eventually("the capture is saved", within: 60) {
      (hub.savedRecord()?["phase"] as? String) == "running"
    }
    let captured = hub.savedRecord()?["captured"] as? [String: [String: Any]]
    #expect((captured?["lamp1"]?["hue"] as? NSNumber)?.doubleValue == 200)
    #expect(captured?["lamp2"]?["on"] as? Bool == false)

    try eventually("ten party steps", within: 60) { commands(hub).filter { $0.port == "lamp1" }.count >= 10 }
    let lamp1 = commands(hub).filter { $0.port == "lamp1" }
    let lamp2 = commands(hub).filter { $0.port == "lamp2" }
    for (before, after) in zip(lamp1, lamp1.dropFirst()) {
      #expect(((after.hue ?? -1) - (before.hue ?? 0) + 360).truncatingRemainder(dividingBy: 360) == 15)
    }
    for (one, two) in zip(lamp1, lamp2) {
      #expect(((two.hue ?? -1) - (one.hue ?? 0) + 360).truncatingRemainder(dividingBy: 360) == 90)
      #expect(one.saturation == 75 && one.brightness == 100 && one.on == true)
    }

    // SIGKILL the effect's process: the supervisor restarts it and the party goes on.
    let victim = try #require(try hub.pid(of: "party"))
    kill(victim, SIGKILL)
    try hub.waitForNewProcess(of: "party", replacing: victim, what: "a new party process", within: 60)
    try hub.process?.waitForLine(containing: "resuming the party", within: 60)
    let afterRestart = commands(hub).count
    try eventually("steps after the restart", within: 60) { commands(hub).count >= afterRestart + 6 }
    #expect(commands(hub).dropFirst(afterRestart).allSatisfy { $0.saturation == 75 })

    // Stop: each light back as it was, lamp2 off again with its warm white kept.
    try hub.send("party.run", "false")
    try eventually("the restore is done", within: 60) { (hub.savedRecord()?["phase"] as? String) == "idle" }
    // The effect saves "idle" as it publishes the last restore; the lights see it a hop later.
    let restored1 = Command(port: "lamp1", on: true, brightness: 40, hue: 200, saturation: 30)
    let restored2 = [
      Command(port: "lamp2", on: true, brightness: 70, colorTemperature: 300), Command(port: "lamp2", on: false),
    ]
    try eventually("the restore at the lights; last: \(commands(hub).suffix(4))", within: 120) {
      commands(hub).last { $0.port == "lamp1" } == restored1
        && Array(commands(hub).filter { $0.port == "lamp2" }.suffix(2)) == restored2
    }
    #expect(hub.log.contains("restored the pre-party state of 2 lights"))
    try hub.stop()
  }

  @Test func aHubRestartNeitherLosesTheCaptureNorReplaysAnOldRun() throws {
    let hub = try startHub()
    try hub.send("bulbs.lamp1.out", #"{"on":true,"brightness":10,"color":{"hue":30,"saturation":90}}"#)
    try hub.send("bulbs.lamp2.out", #"{"on":true,"brightness":20,"color":{"hue":60,"saturation":90}}"#)
    // The switch starts the party, toggle stops it.
    try hub.send("bulbs.switch.out", "true")
    try eventually("running", within: 60) { (hub.savedRecord()?["phase"] as? String) == "running" }
    try hub.send("party.toggle", "trigger")
    try eventually("restored", within: 60) { (hub.savedRecord()?["phase"] as? String) == "idle" }

    // After a hub restart the hub replays the switch's old `true`: no party.
    try hub.stop()
    try hub.start()
    try hub.process?.waitForLine(containing: "run = true again after a restart: not a new request", within: 60)
    #expect((hub.savedRecord()?["phase"] as? String) == "idle")
    #expect(!hub.log.contains("party started"))

    // Toggle starts it; a hub restart mid-run resumes with the first capture.
    try hub.send("party.toggle", "trigger")
    try eventually("running again", within: 60) { (hub.savedRecord()?["phase"] as? String) == "running" }
    try eventually("party colors", within: 60) { commands(hub).last { $0.port == "lamp1" }?.saturation == 75 }
    try hub.stop()
    try hub.start()
    try hub.process?.waitForLine(containing: "resuming the party", within: 60)
    let resumed = commands(hub).count
    try eventually("steps after the hub restart", within: 60) { commands(hub).count >= resumed + 4 }

    // The switch's `false` is news (the last run value was true): stop and restore.
    try hub.send("bulbs.switch.out", "false")
    try eventually("restored again", within: 60) { (hub.savedRecord()?["phase"] as? String) == "idle" }
    // "idle" is saved as the restore is published; the lights see it a hop later (a run beside
    // stress-ng read them first). A party step after the restore would fail this wait.
    let restored1 = Command(port: "lamp1", on: true, brightness: 10, hue: 30, saturation: 90)
    let restored2 = Command(port: "lamp2", on: true, brightness: 20, hue: 60, saturation: 90)
    try eventually("the restore at the lights; last: \(commands(hub).suffix(4))", within: 120) {
      commands(hub).last { $0.port == "lamp1" } == restored1 && commands(hub).last { $0.port == "lamp2" } == restored2
    }
    try hub.stop()
  }

  @Test func aDurationStopsAndRestoresByItselfAndSpeedStaysWithinTheRate() throws {
    let hub = try startHub(extra: "duration_s = 3")
    try hub.send("bulbs.lamp1.out", #"{"on":true,"brightness":55,"color":{"hue":300,"saturation":40}}"#)
    try hub.send("bulbs.lamp2.out", #"{"on":false,"brightness":25,"color":{"hue":100,"saturation":20}}"#)
    try hub.send("party.run", "true")
    try eventually("running", within: 60) { (hub.savedRecord()?["phase"] as? String) == "running" }
    // Twice as fast would be 10 steps/s: more than two lights get at 10 commands/s.
    try hub.send("party.speed", "2")
    try hub.process?.waitForLine(containing: "speed 2.0 asks for 20 steps/s", within: 60)
    try hub.process?.waitForLine(containing: "party stopped (duration reached)", within: 60)
    try eventually("restored", within: 60) { (hub.savedRecord()?["phase"] as? String) == "idle" }
    #expect(
      commands(hub).last { $0.port == "lamp1" }
        == Command(port: "lamp1", on: true, brightness: 55, hue: 300, saturation: 40))
    #expect(commands(hub).last { $0.port == "lamp2" } == Command(port: "lamp2", on: false))
    try hub.stop()
  }
}
