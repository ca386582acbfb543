import Foundation
import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A real hub (`patchbay run`) with an example-swift probe, and a real `patchbay-web` talking to
/// its control socket, on a port the web process chose and printed.
final class WebHarness: @unchecked Sendable {
  let directory: TemporaryDirectory
  var hub: ChildProcess?
  var web: ChildProcess?
  var port = 0

  init() throws { directory = try TemporaryDirectory("patchbay-web") }

  var configPath: String { directory.path + "/patchbay.toml" }
  var socketPath: String { directory.path + "/control.sock" }
  var recordPath: String { directory.path + "/probe.jsonl" }
  var base: String { "http://127.0.0.1:\(port)" }

  /// The probe mirrors each input to `NAME.out`; one route copies `night.out` to `night_copy`; a
  /// double click on `press` activates the scene.
  static func config(directory: String, socket: String, record: String) -> String {
    """
    [hub]
    state_directory = "\(directory)/state"
    control_socket = "\(socket)"
    plugin_path = ["\(directory)/plugins"]

    [instances.probe]
    plugin = "example-swift"
    record = "\(record)"
    ports = [{ name = "lamp", type = "light", kind = "state" },
             { name = "night", type = "bool", kind = "state" },
             { name = "night_copy", type = "bool", kind = "state" },
             { name = "level", type = "integer", kind = "state" },
             { name = "press", type = "button", kind = "event" }]

    [scenes.good_night]
    "probe.lamp" = { on = false }
    "probe.level" = 7

    [[routes]]
    from = "probe.night.out"
    to = "probe.night_copy"

    [[routes]]
    from = "probe.press.out"
    filter = ["double_click"]
    to = "scene.good_night"
    """
  }

  /// `extra` is appended to the config: more instances or routes for one test.
  func startHub(extra: String = "") throws {
    let plugins = directory.path + "/plugins"
    try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
    let link = plugins + "/libpatchbay-plugin-example-swift.so"
    if !FileManager.default.fileExists(atPath: link) {
      try FileManager.default.createSymbolicLink(
        atPath: link, withDestinationPath: BuildProducts.plugin("example-swift"))
    }
    try directory.write(
      "patchbay.toml", Self.config(directory: directory.path, socket: socketPath, record: recordPath) + "\n" + extra)
    let process = try ChildProcess(BuildProducts.executable("patchbay"), ["run", "--config", configPath])
    hub = process
    try process.waitForLine(containing: "hub started", within: 60)
    try eventually("control socket", within: 30) { FileManager.default.fileExists(atPath: socketPath) }
  }

  /// Starts patchbay-web on 127.0.0.1, port 0, and reads the port it printed. `launcher` runs it
  /// (`unshare ...`, `setpriv ...`: its program and arguments, patchbay-web's path follows).
  func startWeb(extra: [String] = [], launcher: [String] = []) throws {
    let arguments = ["--listen", "127.0.0.1:0", "--socket", socketPath] + extra
    let program = BuildProducts.executable("patchbay-web")
    let process =
      try launcher.isEmpty
      ? ChildProcess(program, arguments)
      : ChildProcess(launcher[0], Array(launcher.dropFirst()) + [program] + arguments)
    web = process
    try process.waitForLine(containing: "patchbay-web listening on", within: 60)
    let line = process.lines.first { $0.contains("patchbay-web listening on") } ?? ""
    guard let range = line.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
      let chosen = Int(line[range].split(separator: ":").last ?? "")
    else { throw WebTestError("no port in: \(line)") }
    port = chosen
  }

  /// The probe's record: one JSON line per value it received.
  func recorded() -> [String] {
    ((try? String(contentsOfFile: recordPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  func stop() throws {
    try web?.terminate(within: 30)
    try hub?.terminate(within: 60)
  }

  deinit {
    web?.signal(SIGKILL)
    hub?.signal(SIGKILL)
  }
}

struct WebTestError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
