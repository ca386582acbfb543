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
    let directory = try TemporaryDirectory("patchbay-scene")
    let bridgePort = freeTCPPort()
    let bridge = try BridgeSimulatorProcess(
      port: bridgePort, directory: directory,
      arguments: ["--lights", "4", "--group", "Bedroom=1,2", "--group", "Hall=3,4", "--username", Self.username])
    let homebridgePort = freeTCPPort()
    let homebridgeControl = directory.path + "/homebridge.sock"
    let homebridge = try ChildProcess(
      BuildProducts.executable("patchbay-sim"),
      ["homebridge", "--port", "\(homebridgePort)", "--control", homebridgeControl])
    try homebridge.waitForLine(containing: "listening on", within: 60)
    func table() -> String {
      (try? ControlSocketClient.exchange(path: homebridgeControl, request: "table\n") { $0.contains("\n\n") }) ?? ""
    }
    let config = try directory.write(
      "patchbay.toml",
      """
      [hub]
      state_directory = "\(directory.path)/state"
      control_socket = "\(directory.path)/control.sock"

      [instances.lights]
      plugin = "hue"
      bridge = "127.0.0.1:\(bridgePort)"
      username = "\(Self.username)"
      poll_interval_s = 0.5
      [[instances.lights.groups]]
      name = "bedroom"
      id = "1"
      [[instances.lights.groups]]
      name = "hall"
      id = "2"

      [instances.homekit]
      plugin = "homebridge-websocket"
      url = "ws://127.0.0.1:\(homebridgePort)"
      [[instances.homekit.accessories]]
      name = "ws_evening"
      service = "Switch"

      [instances.probe]
      plugin = "example-swift"
      record = "\(directory.path)/probe.jsonl"
      backoff_initial_ms = 4000
      backoff_max_ms = 4000
      ports = [{ name = "press", type = "button", kind = "event" }, { name = "night", type = "bool", kind = "state" }]

      [instances.remote]
      plugin = "example-swift"
      ports = [{ name = "press", type = "button", kind = "event" }]

      [scenes.good_night]
      "lights.bedroom.light" = { on = false }
      "lights.hall.light" = { on = false }
      "homekit.ws_evening.on" = true
      "probe.night" = true

      [[routes]]
      from = "remote.press.out"
      filter = ["click"]
      to = "scene.good_night"
      """)
    let patchbay = BuildProducts.executable("patchbay")
    func cli(_ arguments: String...) throws -> (status: Int32, output: String) {
      try runProgram(patchbay, [arguments[0], "--config", config] + arguments.dropFirst())
    }
    #expect(try cli("check").status == 0)
    let hub = try ChildProcess(patchbay, ["run", "--config", config])
    defer { hub.signal(SIGKILL) }
    try hub.waitForLine(containing: "hub started", within: 60)
    // All lights on first (through the bridge simulator's own control), and the switch seen.
    for id in ["1", "2", "3", "4"] { _ = try bridge.control("set \(id) on=true") }
    try eventually("the accessory is on the Homebridge simulator") { table().contains("ws_evening (Switch)") }
    // The probe goes down (killed; it is back only after a 4 s back-off)...
    var probePID: Int32?
    try eventually("probe runs") {
      probePID = Int32(
        hub.lines.last { $0.contains("[probe] running (pid") }?.split(separator: " ").last?.dropLast() ?? "")
      return probePID != nil
    }
    kill(probePID!, SIGKILL)
    try hub.waitForLine(containing: "[probe] restarting in")
    // ... and one click activates the scene.
    #expect(try cli("send", "remote.press", "click").status == 0)
    try hub.waitForLine(
      containing: "scene good_night: 4 values handed out; 1 wait for instances that are not running (probe.night)")
    try eventually("every light off on the bridge; \(String(describing: try? bridge.light("1")))") {
      try ["1", "2", "3", "4"].allSatisfy { try bridge.light($0).on == false }
    }
    try eventually("ws_evening on in Homebridge; \(table())") { table().contains("ws_evening (Switch): On=true") }
    // The probe restarts and gets the value that waited.
    try eventually("the waiting value arrived after the restart", within: 60) {
      let record = (try? String(contentsOfFile: directory.path + "/probe.jsonl", encoding: .utf8)) ?? ""
      return record.contains(#"{"port":"night","value":true}"#)
    }
    try hub.terminate()
    try homebridge.terminate()
  }
}
