import Foundation
import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The shipped bedside example (etc/examples/bedside.toml) as a user would run it, but against the
/// simulators: `patchbay-sim flicd` with the bedside button, `patchbay-sim homebridge` and
/// `patchbay-sim hue` with the bedroom group, a real hub with the bundled plugins, and a real
/// patchbay-web on a free port.
final class BedsideHarness {
  static let button = "80:e4:da:71:b6:8e"
  static let hueUsername = "patchbay-web-test-user"
  static let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  let directory: TemporaryDirectory
  var processes: [ChildProcess] = []
  var hub: ChildProcess?
  var web: ChildProcess?
  var port = 0

  var configPath: String { directory.path + "/patchbay.toml" }
  var flicdControl: String { directory.path + "/flicd.sock" }
  var homebridgeControl: String { directory.path + "/homebridge.sock" }
  var hueControl: String { directory.path + "/hue.sock" }
  var base: String { "http://127.0.0.1:\(port)" }

  init() throws { directory = try TemporaryDirectory("patchbay-web-bedside") }

  /// The simulators, then the hub with the example (its ports and bridge pointed at them).
  func start() throws {
    // Each simulator binds a port the system chooses and prints it (no free-port guessing).
    let flicd = try SimulatorUnderTest(
      .flicd, directory: directory, arguments: ["--button", "\(Self.button)=bedside"])
    let homebridge = try SimulatorUnderTest(.homebridge, directory: directory)
    let hue = try SimulatorUnderTest(
      .hue, directory: directory,
      arguments: [
        "--lights", "3", "--group", "bedroom=1,2,3", "--username", Self.hueUsername, "--record",
        directory.path + "/hue.jsonl",
      ])
    processes += [flicd.process, homebridge.process, hue.process]
    let (flicdPort, homebridgePort, huePort) = (flicd.port, homebridge.port, hue.port)

    let plugins = directory.path + "/plugins"
    try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
    for plugin in ["flic", "homebridge-websocket", "hue", "party-lights"] {
      try FileManager.default.createSymbolicLink(
        atPath: plugins + "/libpatchbay-plugin-\(plugin).so", withDestinationPath: BuildProducts.plugin(plugin))
    }
    let example = try String(
      contentsOf: Self.sourceRoot.appendingPathComponent("etc/examples/bedside.toml"), encoding: .utf8)
    let pointed =
      example
      .replacingOccurrences(of: "port = 5551", with: "port = \(flicdPort)")
      .replacingOccurrences(of: "ws://127.0.0.1:4050", with: "ws://127.0.0.1:\(homebridgePort)")
      .replacingOccurrences(of: #"bridge = "192.168.1.20""#, with: #"bridge = "127.0.0.1:\#(huePort)""#)
      .replacingOccurrences(
        of: #"username = "replace-with-the-username-from-hue-pair""#, with: #"username = "\#(Self.hueUsername)""#)
    guard pointed.contains("\(flicdPort)"), pointed.contains("\(homebridgePort)"), pointed.contains("\(huePort)"),
      pointed.contains(Self.hueUsername)
    else { throw WebTestError("etc/examples/bedside.toml changed: the test no longer points it at the simulators") }
    _ = try directory.write(
      "patchbay.toml",
      """
      [hub]
      state_directory = "\(directory.path)/state"
      control_socket = "\(directory.path)/control.sock"
      plugin_path = ["\(plugins)"]

      \(pointed)
      """)
    let process = try ChildProcess(BuildProducts.executable("patchbay"), ["run", "--config", configPath])
    hub = process
    try process.waitForLine(containing: "hub started", within: 60)
    try eventually("every instance running", within: 90) {
      let instances = try self.status()
      return instances.count == 4 && instances.values.allSatisfy { $0["phase"] as? String == "running" }
    }
    // The flic plugin has its channel to the button: a press now reaches the hub.
    let answer = try ControlSocketClient.exchange(
      path: flicdControl, request: "wait-channel \(Self.button) 60\n", timeoutSeconds: 90
    ) { $0.hasSuffix("\n") }
    guard !answer.hasPrefix("error") else { throw WebTestError("flicd simulator: \(answer)") }
  }

  /// patchbay-web on 127.0.0.1, port 0; the port it printed.
  func startWeb() throws {
    (web, port) = try WebHarness.startWeb(socket: directory.path + "/control.sock")
  }

  /// `patchbay status --json`: instance name -> its fields.
  func status() throws -> [String: [String: Any]] {
    let result = try runProgram(
      BuildProducts.executable("patchbay"), ["status", "--json", "--config", configPath], within: 60)
    guard result.status == 0,
      let json = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
      let instances = json["instances"] as? [[String: Any]]
    else { throw WebTestError("patchbay status --json: \(result.output)") }
    return Dictionary(uniqueKeysWithValues: instances.map { ($0["name"] as? String ?? "", $0) })
  }

  /// One line to the flicd simulator's control socket.
  func flicd(_ line: String) throws {
    let answer = try ControlSocketClient.exchange(path: flicdControl, request: line + "\n") { $0.hasSuffix("\n") }
    guard !answer.hasPrefix("error") else { throw WebTestError("flicd simulator: \(line) -> \(answer)") }
  }

  func stop() throws {
    try web?.terminate(within: 30)
    try hub?.terminate(within: 60)
    for process in processes { try process.terminate(within: 30) }
  }

  deinit {
    web?.signal(SIGKILL)
    hub?.signal(SIGKILL)
    for process in processes { process.signal(SIGKILL) }
  }
}
