import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The whole path: simulated flicd -> flic plugin (its own process under `patchbay run`) ->
/// routes -> the example-swift plugin, which records every value it receives.
@Suite(.serialized) struct FlicEndToEndTests {
  let hub: HubUnderTest
  let bedside = "80:e4:da:71:b6:8e"
  let hallway = "08:09:0a:0b:0c:0d"

  init() throws { hub = try HubUnderTest("patchbay-flic", plugins: ["flic", "example-swift"]) }

  var directory: TemporaryDirectory { hub.directory }

  /// The flicd simulator on a port it chose, or on `port` (a restart where the plugin expects it).
  func startSimulator(port: Int = 0, arguments: [String] = []) throws -> SimulatorUnderTest {
    try SimulatorUnderTest(
      .flicd, directory: directory, port: port,
      arguments: ["--button", "\(bedside)=bedside", "--button", "\(hallway)=hallway"] + arguments)
  }

  /// Starts `patchbay run` with the flic instance and a recording probe wired to its ports.
  func startHub(flicdPort: Int) throws -> ChildProcess {
    try hub.writeConfig(
      HubTOML()
        .instance(
          "buttons", plugin: "flic", ["port": .integer(flicdPort), "expose_up_down": true, "max_queued_age_s": 3]
        )
        .arrayTable("instances.buttons.buttons", ["name": "bedside", "address": .string(bedside)])
        .arrayTable(
          "instances.buttons.buttons", ["name": "hallway", "address": .string(hallway), "latency_mode": "low"]
        )
        .probe(
          record: directory.path + "/probe.jsonl",
          ports: [
            .event("bedside", "button"), .event("hallway", "button"), .state("bedside_connected", "bool"),
            .state("bedside_battery", "integer"),
          ]
        )
        .routes([
          "buttons.bedside.button": "probe.bedside", "buttons.hallway.button": "probe.hallway",
          "buttons.bedside.connected": "probe.bedside_connected", "buttons.bedside.battery": "probe.bedside_battery",
        ]))
    try hub.start()
    return hub.process!
  }

  /// The values the probe recorded on one port, in order, as JSON text.
  func recorded(_ port: String) -> [String] { hub.probe.texts(port) }

  func actions(_ port: String) -> [String] { hub.probe.actions(port) }

  static func live(_ action: String) -> String { #"{"action":"\#(action)","queued":false,"age_ms":0}"# }

  @Test func gesturesQueuedPressesAndSeveralButtonsArriveAsButtonValues() throws {
    let simulator = try startSimulator()
    let hub = try startHub(flicdPort: simulator.port)
    defer { _ = try? hub.terminate() }
    try simulator.control("wait-channel \(bedside) 60")
    try simulator.control("wait-channel \(hallway) 60")
    try eventually("connected recorded") { recorded("bedside_connected").last == "true" }
    // The PEER column says the link to flicd is up (it said '-' before: issue 45).
    try eventually("PEER connected in status") {
      (try self.hub.instanceStatus("buttons")?["peer"] as? String) == "connected"
    }

    try simulator.control("press \(bedside) single")
    try eventually("single click; recorded \(recorded("bedside"))") { actions("bedside") == ["down", "up", "click"] }
    try simulator.control("press \(bedside) double")
    try eventually("double click") { actions("bedside").suffix(5) == ["down", "up", "down", "up", "double_click"] }
    try simulator.control("press \(bedside) hold")
    try eventually("hold") { actions("bedside").suffix(3) == ["down", "hold", "up"] }
    try simulator.control("press \(bedside) down")
    try simulator.control("press \(bedside) up")
    try eventually("down and up") { actions("bedside").count == 13 && actions("bedside").suffix(2) == ["down", "up"] }
    #expect(recorded("bedside").contains(Self.live("double_click")))

    // A stale queued press is dropped, a fresh one delivered with its flag and age.
    try simulator.control("queued \(bedside) double 30")
    try simulator.control("queued \(bedside) single 2")
    try eventually("fresh queued click") {
      recorded("bedside").contains(#"{"action":"click","queued":true,"age_ms":2000}"#)
    }
    #expect(!recorded("bedside").contains { $0.contains(#""queued":true"#) && $0.contains("double_click") })
    try eventually("drop logged") { hub.output.contains("dropped a queued double_click") }

    // Each button reaches its own port.
    let bedsideCount = actions("bedside").count
    try simulator.control("press \(hallway) hold")
    try eventually("hallway hold") { actions("hallway") == ["down", "hold", "up"] }
    #expect(actions("bedside").count == bedsideCount)

    try simulator.control("battery \(bedside) 55")
    try eventually("battery") { recorded("bedside_battery").last == "55" }
  }

  @Test func connectedFollowsAFlicdRestartAndPressesArriveAfterIt() throws {
    var simulator: SimulatorUnderTest? = try startSimulator()
    let flicdPort = simulator!.port
    let hub = try startHub(flicdPort: flicdPort)
    defer { _ = try? hub.terminate() }
    try simulator!.control("wait-channel \(bedside) 60")
    try eventually("connected") { recorded("bedside_connected").last == "true" }

    try simulator!.kill()
    simulator = nil
    try eventually("disconnected recorded") { recorded("bedside_connected").last == "false" }

    // flicd comes back where the plugin knows it.
    let restarted = try startSimulator(port: flicdPort)
    try eventually("connected again", within: 60) { recorded("bedside_connected").last == "true" }
    try restarted.control("wait-channel \(bedside) 60")
    try restarted.control("press \(bedside) double")
    try eventually("press after the restart") { actions("bedside").last == "double_click" }
    #expect(recorded("bedside_connected").suffix(3) == ["true", "false", "true"])
  }

  @Test func scanPairsAPendingButtonAndListShowsIt() throws {
    let simulator = try startSimulator()
    let flicdPort = simulator.port
    let scan = try ChildProcess(
      BuildProducts.executable("patchbay"), ["flic", "scan", "--port", "\(flicdPort)", "--timeout", "60"])
    try scan.waitForLine(containing: "hold the button")
    try simulator.control("add-pending-button 80:e4:da:70:00:01 F030abc")
    #expect(try scan.waitForExit() == 0, "\(scan.output)\n\(simulator.process.output)")
    try eventually("snippet printed", within: 5) { scan.output.contains(#"address = "80:e4:da:70:00:01""#) }
    #expect(scan.output.contains("Paired: 80:e4:da:70:00:01 F030abc"))
    #expect(scan.output.contains(#"name = "f030abc""#))

    let list = try runProgram(BuildProducts.executable("patchbay"), ["flic", "list", "--port", "\(flicdPort)"])
    #expect(list.status == 0)
    #expect(list.output.contains("80:e4:da:70:00:01  white  SIM-700001"))
    #expect(list.output.contains(bedside))
    #expect(list.output.contains(hallway))

    let none = try runProgram(
      BuildProducts.executable("patchbay"), ["flic", "scan", "--port", "\(flicdPort)", "--timeout", "1"])
    #expect(none.status == 1)
    #expect(none.output.contains("no button paired"))
  }

  /// flicd found a button, but a private one, and its wizard then gave up: the advice is to
  /// make that button public, not to find one.
  @Test func scanSaysAPrivateButtonWasFoundWhenTheWizardTimesOut() throws {
    let simulator = try startSimulator(arguments: ["--scan-timeout", "2"])
    let flicdPort = simulator.port
    try simulator.control("add-private-button 80:e4:da:70:00:03 F030prv")
    let scan = try runProgram(
      BuildProducts.executable("patchbay"), ["flic", "scan", "--port", "\(flicdPort)", "--timeout", "60"])
    #expect(scan.status == 1)
    #expect(scan.output.contains("Found a private button: hold it for 7 seconds"), "\(scan.output)")
    #expect(
      scan.output.contains("pairing failed: timed out: a button was found, but it is private; hold it for 7 seconds"),
      "\(scan.output)")
    #expect(!scan.output.contains("no button found in time"))
  }

  @Test func checkNamesTheKeyOfAFlicConfigMistake() throws {
    let config = try directory.write(
      "bad.toml",
      """
      [instances.buttons]
      plugin = "flic"
      [[instances.buttons.buttons]]
      name = "bedside"
      address = "80:e4:da:71:b6"
      """)
    let check = try runProgram(BuildProducts.executable("patchbay"), ["check", "--config", config])
    #expect(check.status != 0)
    #expect(check.output.contains("buttons.0.address '80:e4:da:71:b6' must be a Bluetooth address"))
  }
}
