import ArgumentParser
import ChildProcesses
import Foundation
import PatchbayHub

/// `patchbay-sim demo` (`patchbay demo` runs it): the bedside story end to end, with no hardware. It starts the flicd,
/// Homebridge and Hue bridge simulators (which speak the real protocols) and the hub with the
/// flic, homebridge-websocket, hue and party-lights plugins, presses the button, and shows each
/// step as it happens, ending with a short party and the restore of the lights.
public struct DemoCommand: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract:
      "Show the bedside story against the simulators: press -> route -> HomeKit switch -> scene, then party lights.")

  @Flag(help: "Keep everything running afterwards and take button presses from the keyboard.")
  var interactive = false

  @Flag(help: "The story without HomeKit: the button toggles the hub's own scenes, a schedule lights the hall.")
  var standalone = false

  @Flag(
    help: "The story with a simulated Flic 2 through a BlueZ stand-in on a private system bus (flic-ble, no flicd).")
  var ble = false

  @Option(help: "Keep the demo's files (config, state, hub log) in this directory.")
  var directory: String?

  public init() {}

  public func run() throws {
    let work =
      directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("patchbay-demo-\(getpid())").path
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    defer { if directory == nil { try? FileManager.default.removeItem(atPath: work) } }
    let tools = try DemoTools()
    if standalone {
      try StandaloneStory.play(tools: tools, work: work)
      return
    }
    if ble {
      try BLEStory.play(tools: tools, work: work)
      return
    }
    let config = work + "/bedside.toml"
    say("patchbay demo: the bedside story, with simulated hardware")
    say("  config: \(config)   hub log: \(work)/hub.log")
    say("")
    say("Starting the flicd simulator (one paired Flic button) and the Homebridge simulator")
    say("(homebridge-websocket, with two HomeKit automations: ws_morning on -> 'Good Morning',")
    say("ws_evening on -> 'Good Night'; each scene turns both switches off again).")
    let flicd = try ChildProcess.demo(
      "flicd", tools.simulator,
      [
        "flicd", "--port", "0", "--button", "\(BedsideStory.buttonAddress)=bedside",
        "--control", work + "/flicd.sock", "--no-stdin",
      ], show: { $0.hasPrefix("press ") })
    var homebridgeArguments = ["homebridge", "--port", "0", "--control", work + "/homebridge.sock"]
    for automation in BedsideStory.automations { homebridgeArguments += ["--automation", automation] }
    let homebridge = try ChildProcess.demo(
      "homekit", tools.simulator, homebridgeArguments,
      show: { $0.hasPrefix("setValue") || $0.hasPrefix("scene") || $0.hasPrefix("homekit set") || $0.hasPrefix("add ") }
    )
    say("Starting the Hue bridge simulator: the bedroom group, lights 1 and 2 on, light 3 off.")
    let hue = try ChildProcess.demo(
      "hue", tools.simulator, PartyStory.simulatorArguments(directory: work), show: { _ in false })
    defer {
      _ = try? flicd.terminate()
      _ = try? homebridge.terminate()
      _ = try? hue.terminate()
    }
    // The simulators bind ports the system chooses and say which; the config names them.
    try BedsideStory.config(
      directory: work, flicdPort: try flicd.listeningPort(), homebridgePort: try homebridge.listeningPort(),
      huePort: try hue.listeningPort()
    ).write(toFile: config, atomically: false, encoding: .utf8)
    // Each simulator says "control socket PATH" once it can be driven.
    try flicd.waitForLine(containing: "control socket ", within: 60)
    try hue.waitForLine(containing: "control socket ", within: 60)
    for (light, state) in PartyStory.lightsBefore { _ = try sendControl(work + "/hue.sock", "set \(light) \(state)") }
    let lightsBefore = try PartyStory.lightStates(control: work + "/hue.sock")
    let events = HueEvents(simulator: hue, control: work + "/hue.sock")

    var hub = try startHub(tools: tools, config: config, work: work)
    defer { _ = try? hub.terminate() }
    try homebridge.waitForLine(containing: "add party", within: 60)
    _ = try sendControl(work + "/flicd.sock", "wait-channel \(BedsideStory.buttonAddress) 60")
    say("")

    try step(
      "1. Single click: the first scene of the toggle", flicd, "single", homebridge, expect: "scene 'Good Morning' ran",
      settled: "setValue ws_morning.On = false")
    try step(
      "2. Single click again: the other scene", flicd, "single", homebridge, expect: "scene 'Good Night' ran",
      settled: "setValue ws_evening.On = false")

    say("")
    say("3. Restarting the hub: the toggle position is saved under its state directory.")
    let beforeRestart = homebridge.lineCount
    _ = try? hub.terminate()
    hub = try startHub(tools: tools, config: config, work: work)
    _ = try sendControl(work + "/flicd.sock", "wait-channel \(BedsideStory.buttonAddress) 60")
    try homebridge.waitForLine(containing: "add party", after: beforeRestart, within: 60)
    try step(
      "4. Single click after the restart: back to the first scene", flicd, "single", homebridge,
      expect: "scene 'Good Morning' ran", settled: "setValue ws_morning.On = false")
    var mark = events.mark
    try step(
      "5. Double click: party mode, and the HomeKit party switch shows it", flicd, "double", homebridge,
      expect: "setValue party.On = true")
    say("   The Hue bridge takes one group command a second; each step moves the hue 15°:")
    try events.waitForCommands(5, after: mark, matching: { $0.hasPrefix("group ") }) { say("    hue     | \($0)") }

    mark = events.mark
    try step(
      "6. Hold: everything off, and the party gives each light its state back", flicd, "hold", homebridge,
      expect: "setValue party.On = false")
    // Three restores, and light 3 (off before the party) turned off once its color is back.
    try events.waitForCommands(4, after: mark, matching: { $0.hasPrefix("light ") }) { say("    hue     | \($0)") }
    try PartyStory.waitUntilRestored(lightsBefore, events: events)
    say("   Every light is back as it was:")
    for (light, state) in lightsBefore.sorted(by: { $0.key < $1.key }) { say("    hue     | light \(light): \(state)") }
    let outcomes = PartyStory.outcomes(events.commands())
    let over = outcomes["dropped", default: 0] + outcomes["rejected", default: 0]
    say(
      "   The bridge accepted \(outcomes["accepted", default: 0]) commands and dropped or refused \(over) "
        + "for exceeding its rate.")
    say("")

    if interactive {
      say("Interactive: type single, double or hold (Enter) to press the button; Ctrl-D ends.")
      say("Another terminal can use: patchbay status --config \(config)")
      while let line = readLine() {
        let gesture = line.trimmingCharacters(in: .whitespaces)
        guard ["single", "double", "hold", "down", "up"].contains(gesture) else {
          say("  (single, double, hold, down or up)")
          continue
        }
        _ = try? sendControl(work + "/flicd.sock", "press \(BedsideStory.buttonAddress) \(gesture)")
      }
    }
    say("Demo complete: every press went flicd -> flic plugin -> hub route -> homebridge plugin -> HomeKit;")
    say("the party went party-lights -> hub route -> hue plugin -> Hue bridge, and back to how it was.")
  }

  private func startHub(tools: DemoTools, config: String, work: String) throws -> ChildProcess {
    let hub = try ChildProcess.demo(
      "hub", tools.patchbay, ["run", "--config", config], show: { _ in false }, logFile: work + "/hub.log")
    do {
      try hub.waitForLine(containing: "control socket at ", within: 60)
    } catch {
      throw DemoError("the hub did not start; see \(work)/hub.log")
    }
    say(
      "The hub is running (pid \(hub.pid)): instances bedside (flic), homekit (homebridge-websocket), "
        + "lights (hue) and party (party-lights).")
    let watcher = Thread {
      try? ControlClient.watch(pattern: "*", socket: work + "/control.sock") { line in
        // The route's view: the button's value, and what HomeKit writes back.
        if line.contains(".button ") || line.contains(".on.set ") { DemoOutput.say("    hub     | \(line)") }
      }
    }
    watcher.start()
    return hub
  }

  private func step(
    _ title: String, _ flicd: ChildProcess, _ gesture: String, _ homebridge: ChildProcess, expect: String,
    settled: String? = nil
  ) throws {
    say("")
    say(title)
    let mark = homebridge.lineCount
    _ = try sendControl(flicd.controlPath, "press \(BedsideStory.buttonAddress) \(gesture)")
    try homebridge.waitForLine(containing: expect, after: mark, within: 60)
    // A scene switch is momentary: the next press fires its automation only once the hub has
    // switched it off again (after 1.5 s), so the story waits for that write.
    if let settled { try homebridge.waitForLine(containing: settled, after: mark, within: 60) }
  }

  private func say(_ line: String) { DemoOutput.say(line) }
}

/// One control line to a simulator's Unix socket; returns its one-line answer.
func sendControl(_ path: String, _ line: String) throws -> String {
  let stream = try UnixStream.connect(to: path)
  defer { stream.close() }
  stream.writeLine(line)
  let answer = stream.readLine() ?? ""
  if answer.hasPrefix("error") { throw DemoError("simulator refused '\(line)': \(answer)") }
  return answer
}
