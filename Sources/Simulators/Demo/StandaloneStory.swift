import ChildProcesses
import Foundation

/// `patchbay-sim demo --standalone`: the bedside story without HomeKit. The Flic button toggles
/// between the scenes good_morning and good_night, which drive the Hue bridge's groups
/// directly, and the schedule plugin lights the hall (a one-shot time a few seconds ahead
/// stands in for "sunset - 30 min"). The same shape as etc/examples/bedside-standalone.toml.
enum StandaloneStory {
  static func simulatorArguments(directory: String) -> [String] {
    [
      "hue", "--port", "0", "--lights", "3", "--group", "bedroom=1,2", "--group", "hall=3", "--username",
      PartyStory.username, "--control", directory + "/hue.sock", "--record", directory + "/hue.jsonl",
      "--print-events", "--no-stdin",
    ]
  }

  static func config(directory: String, flicdPort: Int, huePort: Int, dusk: String) -> String {
    """
    [hub]
    state_directory = "\(directory)/state"
    control_socket = "\(directory)/control.sock"

    [instances.bedside]
    plugin = "flic"
    port = \(flicdPort)
    [[instances.bedside.buttons]]
    name = "button"
    address = "\(BedsideStory.buttonAddress)"

    [instances.lights]
    plugin = "hue"
    bridge = "127.0.0.1:\(huePort)"
    username = "\(PartyStory.username)"
    poll_interval_s = 1
    [[instances.lights.groups]]
    name = "bedroom"
    id = "1"
    [[instances.lights.groups]]
    name = "hall"
    id = "2"

    [instances.clock]
    plugin = "schedule"
    [[instances.clock.triggers]]
    name = "dusk"
    at = "\(dusk)"

    [scenes.good_morning]
    "lights.bedroom.light" = { on = true, brightness = 80, color_temperature = 250 }

    [scenes.good_night]
    "lights.bedroom.light" = { on = false }
    "lights.hall.light" = { on = false }

    [scenes.hall_evening]
    "lights.hall.light" = { on = true, brightness = 40, color_temperature = 400 }

    [[routes]]
    name = "bedside-scenes"
    from = "bedside.button.button"
    filter = ["click"]
    cycle_to = ["scene.good_morning", "scene.good_night"]

    [[routes]]
    from = "clock.dusk"
    to = "scene.hall_evening"
    """
  }

  /// Runs the story: two clicks (morning, night), then the clock lights the hall.
  static func play(tools: DemoTools, work: String) throws {
    let configPath = work + "/bedside-standalone.toml"
    // The hall's "dusk": a one-shot time 20 s ahead, in RFC 3339 UTC.
    let formatter = ISO8601DateFormatter()
    let dusk = formatter.string(from: Date().addingTimeInterval(20))
    DemoOutput.say("patchbay demo --standalone: the bedside story without HomeKit, with simulated hardware")
    DemoOutput.say("  config: \(configPath)   hub log: \(work)/hub.log")
    let flicd = try ChildProcess.demo(
      "flicd", tools.simulator,
      [
        "flicd", "--port", "0", "--button", "\(BedsideStory.buttonAddress)=bedside",
        "--control", work + "/flicd.sock", "--no-stdin",
      ], show: { $0.hasPrefix("press ") })
    let hue = try ChildProcess.demo("hue", tools.simulator, simulatorArguments(directory: work), show: { _ in false })
    defer {
      _ = try? flicd.terminate()
      _ = try? hue.terminate()
    }
    // The simulators bind ports the system chooses and say which; the config names them.
    try Self.config(directory: work, flicdPort: try flicd.listeningPort(), huePort: try hue.listeningPort(), dusk: dusk)
      .write(toFile: configPath, atomically: false, encoding: .utf8)
    try flicd.waitForLine(containing: "control socket ", within: 60)
    try hue.waitForLine(containing: "control socket ", within: 60)
    for light in ["1", "2", "3"] { _ = try sendControl(work + "/hue.sock", "set \(light) on=false") }
    let events = HueEvents(simulator: hue, control: work + "/hue.sock")
    let hub = try ChildProcess.demo(
      "hub", tools.patchbay, ["run", "--config", configPath], show: { _ in false }, logFile: work + "/hub.log")
    defer { _ = try? hub.terminate() }
    try hub.waitForLine(containing: "control socket at ", within: 60)
    _ = try sendControl(work + "/flicd.sock", "wait-channel \(BedsideStory.buttonAddress) 60")
    DemoOutput.say(
      "The hub runs the flic, hue and schedule plugins; scenes good_morning and good_night are in its config.")
    DemoOutput.say("")
    DemoOutput.say("1. Single click: scene good_morning, the bedroom lights come on")
    _ = try sendControl(work + "/flicd.sock", "press \(BedsideStory.buttonAddress) single")
    try waitForLights(events, ["1": true, "2": true, "3": false])
    DemoOutput.say("")
    DemoOutput.say("2. Single click again: scene good_night, everything off")
    _ = try sendControl(work + "/flicd.sock", "press \(BedsideStory.buttonAddress) single")
    try waitForLights(events, ["1": false, "2": false, "3": false])
    DemoOutput.say("")
    DemoOutput.say("3. The clock: at \(dusk) (standing in for sunset - 30 min) scene hall_evening lights the hall")
    try waitForLights(events, ["1": false, "2": false, "3": true], within: 90)
    DemoOutput.say("")
    DemoOutput.say("Demo complete: flicd -> flic plugin -> route -> scene -> hue plugin -> Hue bridge, and the clock")
    DemoOutput.say("-> schedule plugin -> route -> scene, with no HomeKit in between.")
  }

  /// Waits until each light is on or off as given, and shows it.
  static func waitForLights(_ events: HueEvents, _ wanted: [String: Bool], within seconds: Double = 60) throws {
    let states = try events.waitForLights(within: seconds) { states in
      wanted.allSatisfy { id, on in states[id]?.hasPrefix(on ? "on" : "off") == true }
    }
    for (id, state) in states.sorted(by: { $0.key < $1.key }) {
      DemoOutput.say("    hue     | light \(id): \(state)")
    }
  }
}
