import Foundation
import HueProtocol
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A scene through real processes: one click sets ports on three plugins (two Hue groups on the
/// bridge simulator, a switch on the Homebridge simulator, and a probe that is down at that
/// moment, whose value waits and arrives after its restart).
@Suite(.serialized) struct SceneThroughSimulatorsTests {
  static let username = "pbtest-0123456789abcdefABCDEF"

  @Test func oneClickSetsEveryPortAndADownTargetGetsItsValueLater() throws {
    let hub = try HubUnderTest("patchbay-scene", plugins: ["hue", "homebridge-websocket", "example-swift"])
    let directory = hub.directory
    let bridge = try SimulatorUnderTest.hueBridge(
      directory: directory,
      arguments: ["--lights", "4", "--group", "Bedroom=1,2", "--group", "Hall=3,4", "--username", Self.username])
    let homebridge = try SimulatorUnderTest(.homebridge, directory: directory)
    func table() -> String { (try? homebridge.control("table")) ?? "" }
    try hub.writeConfig(
      HubTOML()
        .instance(
          "lights", plugin: "hue",
          ["bridge": "127.0.0.1:\(bridge.port)", "username": .string(Self.username), "poll_interval_s": 0.5]
        )
        .arrayTable("instances.lights.groups", ["name": "bedroom", "id": "1"])
        .arrayTable("instances.lights.groups", ["name": "hall", "id": "2"])
        .instance("homekit", plugin: "homebridge-websocket", ["url": "ws://127.0.0.1:\(homebridge.port)"])
        .accessory("ws_evening", service: "Switch")
        .probe(
          record: directory.path + "/probe.jsonl", ports: [.event("press", "button"), .state("night", "bool")],
          ["backoff_initial_ms": 4000, "backoff_max_ms": 4000]
        )
        .probe("remote", ports: [.event("press", "button")])
        .table(
          "scenes.good_night",
          [
            "lights.bedroom.light": ["on": false], "lights.hall.light": ["on": false], "homekit.ws_evening.on": true,
            "probe.night": true,
          ]
        )
        .route(from: "remote.press.out", to: "scene.good_night", ["filter": ["click"]]))
    #expect(try hub.check().status == 0)
    try hub.start()
    let log = hub.process!
    // All lights on first (through the bridge simulator's own control), and the switch seen.
    for id in ["1", "2", "3", "4"] { _ = try bridge.control("set \(id) on=true") }
    try eventually("the accessory is on the Homebridge simulator") { table().contains("ws_evening (Switch)") }
    // The probe goes down (killed; it is back only after a 4 s back-off)...
    var probePID: Int32?
    try eventually("probe runs") {
      probePID = Int32(
        log.lines.last { $0.contains("[probe] running (pid") }?.split(separator: " ").last?.dropLast() ?? "")
      return probePID != nil
    }
    kill(probePID!, SIGKILL)
    try log.waitForLine(containing: "[probe] restarting in")
    // ... and one click activates the scene.
    #expect(try hub.cli("send", "remote.press", "click").status == 0)
    try log.waitForLine(
      containing: "scene good_night: 4 values handed out; 1 wait for instances that are not running (probe.night)")
    try eventually("every light off on the bridge; \(String(describing: try? bridge.light("1")))") {
      try ["1", "2", "3", "4"].allSatisfy { try bridge.light($0).on == false }
    }
    try eventually("ws_evening on in Homebridge; \(table())") { table().contains("ws_evening (Switch): On=true") }
    // The probe restarts and gets the value that waited.
    try eventually("the waiting value arrived after the restart", within: 60) {
      hub.lines("probe.jsonl").contains(#"{"port":"night","value":true}"#)
    }
    try hub.stop()
    try homebridge.stop()
  }
}
