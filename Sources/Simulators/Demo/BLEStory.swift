import ChildProcesses
import Foundation

/// `patchbay-sim demo --ble`: the bedside story with a simulated Flic 2 through BlueZ, no flicd.
/// A private D-Bus system bus (dbus-daemon), the BlueZ stand-in on it (python-dbusmock's bluez5
/// template with a Flic's GATT objects, `Plugins/flic-ble/StandIn/flic_bluez.py`, bridged to the
/// simulated button `FlicBLEButtonHost`), `patchbay flic-ble pair` as a person runs it, and the
/// hub with the flic-ble and homebridge-websocket plugins. The button's clicks toggle the
/// "Good Morning" and "Good Night" scenes; one click waits in the button while it is out of range
/// and arrives when it is back.
enum BLEStory {
  static let buttonAddress = "80:E4:DA:71:B6:8E"
  static let python = "/usr/bin/python3"
  static let dbusDaemon = "/usr/bin/dbus-daemon"

  static func config(directory: String, homebridgePort: Int, factoryKey: String) -> String {
    """
    [hub]
    state_directory = "\(directory)/state"
    control_socket = "\(directory)/control.sock"

    [instances.bedside]
    plugin = "flic-ble"
    # The simulated button is signed by a test factory key (a debug build's option only).
    test_factory_key = "\(factoryKey)"
    [[instances.bedside.buttons]]
    name = "button"
    address = "\(buttonAddress.lowercased())"

    [instances.homekit]
    plugin = "homebridge-websocket"
    url = "ws://127.0.0.1:\(homebridgePort)"
    [[instances.homekit.accessories]]
    name = "ws_morning"
    service = "Switch"
    [[instances.homekit.accessories]]
    name = "ws_evening"
    service = "Switch"

    [[routes]]
    name = "bedside-scenes"
    from = "bedside.button.button"
    filter = ["click"]
    value = true
    cycle_to = ["homekit.ws_morning.on", "homekit.ws_evening.on"]
    momentary = { reset = false, after_ms = 1500 }

    [[routes]]
    name = "bedside-all-off"
    from = "bedside.button.button"
    filter = ["hold"]
    value = false
    to = ["homekit.ws_morning.on", "homekit.ws_evening.on"]
    """
  }

  static let busConfig = """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <busconfig>
      <type>system</type>
      <auth>EXTERNAL</auth>
      <listen>unix:path=SOCKET</listen>
      <policy context="default">
        <allow user="*"/>
        <allow own="*"/>
        <allow send_type="method_call"/>
        <allow send_type="signal"/>
        <allow send_requested_reply="true" send_type="method_return"/>
        <allow send_requested_reply="true" send_type="error"/>
        <allow receive_type="method_call"/>
        <allow receive_type="method_return"/>
        <allow receive_type="error"/>
        <allow receive_type="signal"/>
      </policy>
    </busconfig>

    """

  /// The stand-in's template: in the source tree the build ran from (the stand-in is a test
  /// tool, not installed).
  static func standInTemplate(tools: DemoTools) throws -> String {
    var folder = (tools.simulator as NSString).deletingLastPathComponent
    while folder.count > 1 {
      let candidate = folder + "/Plugins/flic-ble/StandIn/flic_bluez.py"
      if FileManager.default.fileExists(atPath: candidate) { return candidate }
      folder = (folder as NSString).deletingLastPathComponent
    }
    throw DemoError(
      "demo --ble runs the BlueZ stand-in of the source tree (Plugins/flic-ble/StandIn/flic_bluez.py), "
        + "and \(tools.simulator) is not in one: run scripts/demo --ble from a checkout")
  }

  static func play(tools: DemoTools, work: String) throws {
    let beside = (tools.simulator as NSString).deletingLastPathComponent
    let buttonHost = beside + "/FlicBLEButtonHost"
    guard FileManager.default.isExecutableFile(atPath: buttonHost) else {
      throw DemoError("demo --ble needs the simulated Flic 2, \(buttonHost): build it with `swift build`")
    }
    guard FileManager.default.isExecutableFile(atPath: dbusDaemon) else {
      throw DemoError("demo --ble needs \(dbusDaemon) (package dbus): scripts/bootstrap demo installs it")
    }
    let probe = try ChildProcess(python, ["-c", "import dbusmock"])
    guard try probe.waitForExit() == 0 else {
      throw DemoError("demo --ble needs python-dbusmock (package python3-dbusmock): scripts/bootstrap demo installs it")
    }
    let template = try standInTemplate(tools: tools)
    let config = work + "/bedside-ble.toml"
    say("patchbay demo --ble: the bedside story with a Flic 2 through BlueZ (no flicd)")
    say("  config: \(config)   hub log: \(work)/hub.log")
    say("")
    say("Starting a D-Bus system bus of the demo's own, and on it the BlueZ stand-in: bluetoothd's")
    say("org.bluez API (adapter hci0, discovery, GATT over D-Bus) with a simulated Flic 2 button.")
    let socket = work + "/system_bus_socket"
    try busConfig.replacingOccurrences(of: "SOCKET", with: socket).write(
      toFile: work + "/bus.conf", atomically: false, encoding: .utf8)
    let bus = try ChildProcess.demo(
      "dbus", dbusDaemon, ["--config-file=\(work)/bus.conf", "--nofork", "--print-address=1"], show: { _ in false })
    defer { _ = try? bus.terminate() }
    try bus.waitForLine(containing: "unix:path=", within: 60)
    // Everything started from here (the hub, its plugin, the pair tool) finds this bus.
    setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=" + socket, 1)

    let bluez = try ChildProcess(
      python,
      ["-m", "dbusmock", "--system", "-t", template, "-p", #"{"button_host": "\#(buttonHost)"}"#],
      standardError: .file(work + "/bluez.log"), keepInputOpen: true)
    DemoShutdown.track(bluez)
    defer {
      try? bluez.closeInput()
      _ = try? bluez.terminate()
    }
    try bluez.waitForLine(containing: "ready", within: 60)
    func control(_ line: String) throws {
      let mark = bluez.lineCount
      try bluez.write(line + "\n")
      let answer = try bluez.waitForLine(containing: "ok", after: mark, within: 60).text
      guard answer == "ok" else { throw DemoError("the BlueZ stand-in refused '\(line)': \(answer)") }
    }
    try control("add \(buttonAddress)")

    say("Starting the Homebridge simulator (ws_morning on -> 'Good Morning', ws_evening on -> 'Good Night').")
    var homebridgeArguments = ["homebridge", "--port", "0", "--control", work + "/homebridge.sock"]
    for automation in BedsideStory.automations.map({ $0.replacingOccurrences(of: ", party.On=false", with: "") }) {
      homebridgeArguments += ["--automation", automation]
    }
    let homebridge = try ChildProcess.demo(
      "homekit", tools.simulator, homebridgeArguments,
      show: { $0.hasPrefix("setValue") || $0.hasPrefix("scene") || $0.hasPrefix("homekit set") })
    defer { _ = try? homebridge.terminate() }
    let factoryKey = try simulatorFactoryKey(buttonHost)
    try Self.config(directory: work, homebridgePort: try homebridge.listeningPort(), factoryKey: factoryKey).write(
      toFile: config, atomically: false, encoding: .utf8)

    let hub = try ChildProcess.demo(
      "hub", tools.patchbay, ["run", "--config", config], show: { _ in false }, logFile: work + "/hub.log")
    defer { _ = try? hub.terminate() }
    do {
      try hub.waitForLine(containing: "control socket at ", within: 60)
    } catch {
      throw DemoError("the hub did not start; see \(work)/hub.log")
    }
    say("The hub is running (pid \(hub.pid)): instances bedside (flic-ble) and homekit (homebridge-websocket).")
    let watch = try ChildProcess.demo(
      "hub", tools.patchbay, ["watch", "--config", config, "bedside.*"],
      show: { $0.contains(".button ") || $0.contains(".connected ") || $0.contains(".battery ") })
    defer { _ = try? watch.terminate() }

    say("")
    say("1. Pairing, as a person does it: hold the button 7 s, then")
    say("   patchbay flic-ble pair bedside button --address \(buttonAddress)")
    let pair = try ChildProcess.demo(
      "pair", tools.patchbay,
      [
        "flic-ble", "--config", config, "pair", "bedside", "button", "--address", buttonAddress,
        "--test-factory-key", factoryKey,
      ], show: { _ in true })
    guard try pair.waitForExit(within: 120) == 0 else { throw DemoError("pairing failed; see above") }
    _ = try watch.waitForLine(containing: "bedside.button.connected true", within: 60)

    try step(
      "2. Single click: the first scene of the toggle", expect: "scene 'Good Morning' ran",
      settled: "setValue ws_morning.On = false", homebridge: homebridge
    ) { try control("press \(buttonAddress) click") }
    try step(
      "3. Single click again: the other scene", expect: "scene 'Good Night' ran",
      settled: "setValue ws_evening.On = false", homebridge: homebridge
    ) { try control("press \(buttonAddress) click") }

    say("")
    say("4. The button goes out of range: the link drops, and a click waits in the button.")
    let mark = watch.lineCount
    try control("out-of-range \(buttonAddress)")
    _ = try watch.waitForLine(containing: "bedside.button.connected false", after: mark, within: 60)
    try step(
      "   Back in range: the plugin reconnects and the queued click arrives (queued, with its age)",
      expect: "scene 'Good Morning' ran", settled: "setValue ws_morning.On = false", homebridge: homebridge
    ) {
      try control("press \(buttonAddress) click")
      try control("advance \(buttonAddress) 1")
      try control("in-range \(buttonAddress)")
    }
    say("")
    say("Demo complete: every press went Flic 2 -> BlueZ (D-Bus GATT) -> flic-ble plugin -> hub route ->")
    say("homebridge plugin -> HomeKit, with the Bluetooth adapter shared through BlueZ (no flicd).")
  }

  private static func step(
    _ title: String, expect: String, settled: String, homebridge: ChildProcess, press: () throws -> Void
  ) throws {
    say("")
    say(title)
    let mark = homebridge.lineCount
    try press()
    try homebridge.waitForLine(containing: expect, after: mark, within: 60)
    // The scene switch is momentary: the next click fires its automation once it is off again.
    try homebridge.waitForLine(containing: settled, after: mark, within: 60)
  }

  /// The simulated button's test factory key, as FlicBLEButtonHost reports it (`factory-key`).
  private static func simulatorFactoryKey(_ buttonHost: String) throws -> String {
    let host = try ChildProcess(buttonHost, [], keepInputOpen: true)
    defer { _ = try? host.terminate() }
    try host.write("factory-key\n")
    let line = try host.waitForLine(containing: "key ", within: 30).text
    return String(line.dropFirst("key ".count))
  }

  private static func say(_ line: String) { DemoOutput.say(line) }
}
