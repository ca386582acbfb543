import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay demo`, the README's first command: flicd simulator -> flic plugin -> hub ->
/// homebridge-websocket plugin -> Homebridge simulator, with a hub restart in the middle.
@Suite(.serialized) struct DemoTests {
  /// `kill PID` of an interactive demo (SIGTERM reaches the demo alone, unlike Ctrl-C): the
  /// simulators, the hub and its plugin hosts end with it instead of living on under init.
  @Test func aDemoEndedBySIGTERMTakesItsProgramsWithIt() throws {
    let directory = try TemporaryDirectory("patchbay-demo-sigterm")
    let demo = try ChildProcess(
      BuildProducts.executable("patchbay"), ["demo", "--interactive", "--directory", directory.path],
      keepInputOpen: true)
    try demo.waitForLine(containing: "Interactive: type", within: 300)
    let programs = HubUnderTest.children(of: demo.pid).filter(HubUnderTest.isAlive)
    // flicd, Homebridge and Hue simulators and the hub, and the hub's plugin hosts.
    #expect(programs.count >= 4, "\(programs)")
    let everything = programs + programs.flatMap { HubUnderTest.children(of: $0) }
    demo.signal(SIGTERM)
    _ = try demo.waitForExit(within: 120)
    try eventually("every program of the demo ended: \(everything.filter(HubUnderTest.isAlive))", within: 60) {
      everything.allSatisfy { !HubUnderTest.isAlive($0) }
    }
  }

  /// `patchbay demo --standalone`: the same button drives the hub's own scenes on the Hue
  /// simulator, and the schedule plugin's clock runs a third scene.
  @Test func theStandaloneStoryRunsScenesAndTheClock() throws {
    let result = try Self.demo("patchbay-demo-standalone", ["--standalone"])
    let milestones = [
      "1. Single click: scene good_morning", "light 1: on, bri 80 %, ct 250", "light 2: on, bri 80 %, ct 250",
      "2. Single click again: scene good_night", "light 1: off", "light 2: off",
      "3. The clock", "light 3: on, bri 40 %, ct 400", "Demo complete",
    ]
    Self.expect(milestones, inOrderIn: result.output)
  }

  /// `patchbay demo --ble`: a simulated Flic 2 through the BlueZ stand-in on a private system
  /// bus, paired with `patchbay flic-ble pair`, toggles the scenes; a click made out of range
  /// arrives once the button is back.
  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"),
      "needs dbus-daemon and python3-dbusmock (scripts/bootstrap demo)"))
  func theBedsideStoryPlaysOutWithAFlic2ThroughBlueZ() throws {
    let result = try Self.demo("patchbay-demo-ble", ["--ble"])
    let milestones = [
      "1. Pairing", "paired button (80:E4:DA:71:B6:8E", "bedside.button.connected true",
      "2. Single click", "setValue ws_morning.On = true", "scene 'Good Morning' ran",
      "3. Single click again", "setValue ws_evening.On = true", "scene 'Good Night' ran",
      "4. The button goes out of range", "bedside.button.connected false", "scene 'Good Morning' ran",
      "Demo complete: every press went Flic 2 -> BlueZ (D-Bus GATT) -> flic-ble plugin",
    ]
    // The click made out of range arrives flagged as queued.
    #expect(result.output.contains(#""queued":true"#), "\(result.output)")
    Self.expect(milestones, inOrderIn: result.output)
  }

  @Test func theBedsideStoryPlaysOutEndToEnd() throws {
    let result = try Self.demo("patchbay-demo-test")
    let output = result.output
    // Each step's HomeKit outcome comes after its press, in this order.
    let milestones = [
      "1. Single click", "setValue ws_morning.On = true", "scene 'Good Morning' ran",
      "2. Single click again", "setValue ws_evening.On = true", "scene 'Good Night' ran",
      "3. Restarting the hub",
      "4. Single click after the restart", "setValue ws_morning.On = true", "scene 'Good Morning' ran",
      "5. Double click", "setValue party.On = true",
      // The party on the Hue simulator's group: 15° steps at 75 % saturation, full brightness.
      "group 1 <- on, hue 0°, sat 75 %, bri 100 %", "group 1 <- on, hue 15°, sat 75 %, bri 100 %",
      "group 1 <- on, hue 30°, sat 75 %, bri 100 %", "group 1 <- on, hue 45°, sat 75 %, bri 100 %",
      "6. Hold", "setValue party.On = false",
      // Light 3 was off: its color comes back, then it is turned off.
      "light 3 <- on, hue 140°, sat 100 %, bri 79 %", "light 3 <- off",
      "Every light is back as it was", "light 3: off, hue 140°, sat 100 %, bri 79 %",
      "dropped or refused 0 for exceeding its rate",
      "Demo complete",
    ]
    Self.expect(milestones, inOrderIn: output)
    // The momentary switch: turned on, then off again by the hub itself.
    #expect(output.contains("setValue ws_morning.On = false"))
  }

  /// `patchbay demo ARGUMENTS` in a fresh folder, which must end well; its result.
  static func demo(_ folder: String, _ arguments: [String] = []) throws -> (status: Int32, output: String) {
    let directory = try TemporaryDirectory(folder)
    let result = try runProgram(
      BuildProducts.executable("patchbay"), ["demo"] + arguments + ["--directory", directory.path], within: 300)
    #expect(result.status == 0, "\(result.output)")
    return result
  }

  /// Each milestone in `output`, in this order.
  static func expect(_ milestones: [String], inOrderIn output: String) {
    var searchFrom = output.startIndex
    for milestone in milestones {
      guard let found = output.range(of: milestone, range: searchFrom..<output.endIndex) else {
        Issue.record("missing, or out of order: \(milestone)\n--- output:\n\(output)")
        return
      }
      searchFrom = found.upperBound
    }
  }

  @Test func theShippedBedsideExampleChecks() throws {
    let example = HubUnderTest.repositoryRoot + "/etc/examples/bedside.toml"
    let result = try runProgram(BuildProducts.executable("patchbay"), ["check", "--config", example])
    #expect(result.status == 0, "\(result.output)")
  }
}
