import Foundation
import HueProtocol
import PatchbayTestSupport
import Testing

/// The whole path against real processes: `patchbay-sim hue` (a bridge over HTTP) <- hue
/// plugin (its own process under `patchbay run`) -> routes -> an example-swift probe that
/// records what the hue ports publish.
@Suite(.serialized) struct HueEndToEndTests {
  static let username = "pbtest-0123456789abcdefABCDEF"
  let hub: HubUnderTest
  /// The bridge's port: one test starts the hub first, and the bridge comes and goes there.
  let reservation: PortReservation
  var bridgePort: Int { reservation.port }

  init() throws {
    hub = try HubUnderTest("patchbay-hue")
    reservation = try PortReservation()
  }

  func startBridge(_ extra: [String] = []) throws -> SimulatorUnderTest {
    try .hueBridge(
      directory: hub.directory, port: bridgePort,
      arguments: ["--lights", "4", "--group", "Living=1,2,3", "--username", Self.username] + extra)
  }

  func startHub(poll: Double = 0.5, timeout: Double = 5) throws -> HubUnderTest {
    try hub.startHue(
      hue: HubTOML()
        .keys([
          "log_level": "debug", "bridge": "127.0.0.1:\(bridgePort)", "username": .string(Self.username),
          "poll_interval_s": .float(poll), "retry_max_s": 2, "request_timeout_s": .float(timeout),
        ])
        .arrayTable(
          "instances.lights.groups",
          [
            "name": "living", "id": "1", "lights": ["1", "2", "3"], "expose_lights": true, "light_names": ["2": "desk"],
          ]),
      probe: [
        ("living_state", "living.state", "light"), ("living_reachable", "living.reachable", "bool"),
        ("living_unreachable", "living.unreachable", "text"), ("desk_state", "living.desk.state", "light"),
      ])
    return hub
  }

  func lights(_ bridge: SimulatorUnderTest, _ ids: [String] = ["1", "2", "3"]) -> [HueLightState] {
    ids.compactMap { try? bridge.light($0) }
  }

  @Test func aGroupTurnsOnWithAColorAndStateFollowsTheBridge() throws {
    let bridge = try startBridge()
    let hub = try startHub()
    try eventually("bridge read; probe: \(hub.recorded("living_reachable"))", within: 60) {
      hub.last("living_reachable") == .bool(true) && hub.last("living_state")?["on"] == .bool(false)
    }

    try hub.send("lights.living.light", #"{"on":true,"brightness":80,"color":{"hue":120,"saturation":100}}"#)
    try eventually("all members green; bridge: \(lights(bridge))") {
      lights(bridge).count == 3
        && lights(bridge).allSatisfy { $0.on && $0.bri == 203 && $0.hue == 21845 && $0.sat == 254 }
    }
    try eventually("aggregate on and green; probe: \(hub.recorded("living_state"))") {
      guard let state = hub.last("living_state") else { return false }
      return state["on"] == .bool(true) && state.has("brightness", near: 80) && state.has("color.hue", near: 120)
        && state.has("color.saturation", near: 100)
    }
    // One group action, no per-light popcorn.
    let commands = bridge.records()
    #expect(commands.filter { $0["kind"]?.stringValue == "group" && $0["id"]?.stringValue == "1" }.count == 1)
    #expect(commands.filter { $0["kind"]?.stringValue == "light" }.count == 0)

    // Someone changes the desk light with another app: seen after the next poll.
    try bridge.control("set 2 bri=127 hue=46920 sat=254")
    try eventually("desk change seen; probe: \(hub.recorded("desk_state"))") {
      guard let desk = hub.last("desk_state") else { return false }
      return desk.has("brightness", near: 50) && desk.has("color.hue", near: 257.75)
    }
    try eventually("aggregate brightness over three on members") {
      hub.last("living_state")?.has("brightness", near: (79.92 * 2 + 50) / 3) ?? false
    }
    try bridge.control("set 1 on=false")
    try eventually("aggregate brightness over the two members that are on") {
      hub.last("living_state")?.has("brightness", near: (79.92 + 50) / 2) ?? false
    }

    // Per-attribute errors inside a 200 answer are logged: brightness of a light that is off.
    try hub.send("lights.living.light1.light", #"{"brightness":30}"#)
    try hub.process!.waitForLine(
      containing: "the bridge refused part of a command to light 1: error 201 at /lights/1/state/bri")

    // A member loses power: named, and the group stays available until all are gone.
    try bridge.control("unreachable 3")
    try eventually("light3 unreachable") { hub.last("living_unreachable") == .string("light3") }
    #expect(hub.last("living_reachable") == .bool(true))
    try bridge.control("unreachable 1")
    try bridge.control("unreachable 2")
    try eventually("group unavailable") {
      hub.last("living_reachable") == .bool(false) && hub.last("living_unreachable") == .string("light1,desk,light3")
    }
    try bridge.control("reachable 2")
    try eventually("group available again") { hub.last("living_reachable") == .bool(true) }

    #expect(!hub.process!.output.contains(Self.username), "the username reached the log")
  }

  @Test func aFloodStaysWithinTheBridgesRatesAndEndsInTheLastCommand() throws {
    let bridge = try startBridge(["--over-limit", "429", "--max-concurrent", "3"])
    let hub = try startHub(poll: 1)
    try eventually("bridge read", within: 60) { hub.last("living_reachable") == .bool(true) }

    // About 100 commands per second for about 10 s into the group's port.
    func groupCommand(_ index: Int) -> (json: String, bri: Int, hue: Int, sat: Int) {
      let brightness = Double(index % 100 + 1)
      let hue = Double(index * 7 % 360)
      return (
        #"{"on":true,"brightness":\#(brightness),"color":{"hue":\#(hue),"saturation":80}}"#,
        HueUnits.bri(percent: brightness), HueUnits.hue(degrees: hue), HueUnits.sat(percent: 80)
      )
    }
    for index in 0..<1000 {
      try hub.send("lights.living.light", groupCommand(index).json)
      Thread.sleep(forTimeInterval: 0.01)
    }
    let last = groupCommand(999)
    try eventually("lights in the last group command's state; bridge: \(lights(bridge))", within: 60) {
      lights(bridge).count == 3
        && lights(bridge).allSatisfy { $0.bri == last.bri && $0.hue == last.hue && $0.sat == last.sat }
    }

    // Then different values per member: light commands.
    var expected: [String: Int] = [:]
    let members = [("light1", "1"), ("desk", "2"), ("light3", "3")]
    for index in 0..<300 {
      let (name, id) = members[index % 3]
      let hue = Double(index % 360)
      try hub.send("lights.living.\(name).light", #"{"color":{"hue":\#(hue),"saturation":50}}"#)
      expected[id] = HueUnits.hue(degrees: hue)
      Thread.sleep(forTimeInterval: 0.01)
    }
    try eventually("each member in its last command's state; bridge: \(lights(bridge))", within: 60) {
      members.allSatisfy { (try? bridge.light($0.1).hue) == expected[$0.1] }
    }

    let records = bridge.records()
    #expect(
      records.allSatisfy { $0["outcome"]?.stringValue == "accepted" },
      "rejected: \(records.filter { $0["outcome"]?.stringValue != "accepted" })")
    for (kind, rate) in [("group", 1), ("light", 10)] {
      let times = records.filter { $0["kind"]?.stringValue == kind }.compactMap { $0["t"]?.doubleValue }.sorted()
      #expect(times.count >= 3, "\(kind) commands: \(times.count)")
      let worst = times.indices.map { index in times[index...].prefix { $0 < times[index] + 1 }.count }.max() ?? 0
      #expect(worst <= rate, "\(worst) \(kind) commands within one second (rate \(rate))")
      print("flood: \(times.count) \(kind) commands accepted, at most \(worst) within one second (rate \(rate))")
    }
    // The flood was coalesced, not queued: far fewer group commands than were sent.
    #expect(records.filter { $0["kind"]?.stringValue == "group" }.count < 100)
    #expect(!hub.process!.output.contains("overloaded"), "the bridge answered 429/503")
    #expect(!hub.process!.output.contains(Self.username), "the username reached the log")
  }

  @Test func anOverloadedBridgeAnswering503IsRetriedUntilTheNewestCommandLands() throws {
    // The bridge takes one group command per 4 s; the plugin is told 1 per second.
    let bridge = try startBridge(["--over-limit", "503", "--group-rate", "0.25"])
    let hub = try startHub()
    try eventually("bridge read", within: 60) { hub.last("living_reachable") == .bool(true) }
    try hub.send("lights.living.light", #"{"on":true,"color":{"hue":30,"saturation":100}}"#)
    try eventually("first command applied") {
      lights(bridge).allSatisfy { $0.on && $0.hue == HueUnits.hue(degrees: 30) }
    }
    try hub.send("lights.living.light", #"{"color":{"hue":200,"saturation":100}}"#)
    try hub.send("lights.living.light", #"{"brightness":50}"#)
    try hub.process!.waitForLine(
      containing: "command to group 1 failed (overloaded (HTTP 503)); kept, retrying in", within: 60)
    try eventually("the newest state applied after the retries; bridge: \(lights(bridge))", within: 60) {
      lights(bridge).count == 3
        && lights(bridge).allSatisfy { $0.hue == HueUnits.hue(degrees: 200) && $0.bri == HueUnits.bri(percent: 50) }
    }
    #expect(bridge.records().filter { $0["outcome"]?.stringValue == "rejected" }.count >= 1)
    #expect(hub.process!.isRunning)
  }

  @Test func aHangingBridgeTimesOutAndTheCommandLandsWhenItAnswersAgain() throws {
    let bridge = try startBridge()
    let hub = try startHub(timeout: 1)
    try eventually("bridge read", within: 60) { hub.last("living_reachable") == .bool(true) }
    try bridge.control("latency 3000")
    try eventually("unavailable after timeouts", within: 60) { hub.last("living_reachable") == .bool(false) }
    try hub.send("lights.living.light", #"{"on":true,"color":{"hue":90,"saturation":100}}"#)
    try hub.process!.waitForLine(containing: "command to group 1 failed (unreachable:", within: 60)
    try bridge.control("latency 0")
    try eventually("the command applied once the bridge answers; bridge: \(lights(bridge))", within: 60) {
      lights(bridge).count == 3 && lights(bridge).allSatisfy { $0.on && $0.hue == HueUnits.hue(degrees: 90) }
    }
    try eventually("available again") { hub.last("living_reachable") == .bool(true) }
  }

  @Test func anUnreachableBridgeIsRetriedWithBackOffAndCommandsWaitForIt() throws {
    let hub = try startHub()
    try eventually("unavailable reported; probe: \(hub.recorded("living_reachable"))", within: 60) {
      hub.last("living_reachable") == .bool(false) && hub.last("living_unreachable") == .string("light1,desk,light3")
    }
    try hub.send("lights.living.light", #"{"on":true,"brightness":100,"color":{"hue":240,"saturation":100}}"#)
    try eventually("retries with back-off", within: 60) {
      hub.process!.lines.filter { $0.contains("bridge poll failed") && $0.contains("next try in") }.count >= 3
    }

    var bridge = try startBridge()
    try eventually("command applied when the bridge came", within: 60) {
      lights(bridge).allSatisfy { $0.on && $0.bri == 254 && $0.hue == HueUnits.hue(degrees: 240) }
        && lights(bridge).count == 3
    }
    try eventually("available") { hub.last("living_reachable") == .bool(true) }

    try bridge.kill()
    try eventually("unavailable again", within: 60) { hub.last("living_reachable") == .bool(false) }
    try hub.send("lights.living.desk.light", #"{"on":true,"brightness":30,"color":{"hue":60,"saturation":50}}"#)
    try hub.send("lights.living.light", #"{"on":true,"color":{"hue":300,"saturation":100}}"#)
    try hub.send("lights.living.desk.light", #"{"brightness":40}"#)

    bridge = try startBridge()
    try eventually("the newest commands applied after the bridge came back; bridge: \(lights(bridge))", within: 60) {
      let states = lights(bridge)
      return states.count == 3 && states.allSatisfy { $0.on && $0.hue == HueUnits.hue(degrees: 300) }
        && states[1].bri == HueUnits.bri(percent: 40)
    }
    try eventually("available again") { hub.last("living_reachable") == .bool(true) }
    let reachability = hub.recorded("living_reachable").compactMap(\.boolValue)
    #expect(reachability.split(separator: true, omittingEmptySubsequences: true).count >= 2)
    #expect(hub.process!.isRunning)
    #expect(!hub.process!.output.contains(Self.username), "the username reached the log")
  }
}
