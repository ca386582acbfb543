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
  static func config(directory: String, socket: String, record: String) -> HubTOML {
    HubTOML()
      .table(
        "hub",
        [
          "state_directory": "\(directory)/state", "control_socket": .string(socket),
          "plugin_path": ["\(directory)/plugins"],
        ]
      )
      .probe(
        record: record,
        ports: [
          .state("lamp", "light"), .state("night", "bool"), .state("night_copy", "bool"), .state("level", "integer"),
          .event("press", "button"),
        ]
      )
      .table("scenes.good_night", ["probe.lamp": ["on": false], "probe.level": 7])
      .route(from: "probe.night.out", to: "probe.night_copy")
      .route(from: "probe.press.out", to: "scene.good_night", ["filter": ["double_click"]])
  }

  /// `extra` is appended to the config: more instances or routes for one test.
  func startHub(extra: HubTOML = HubTOML()) throws {
    let plugins = directory.path + "/plugins"
    try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
    let link = plugins + "/libpatchbay-plugin-example-swift.so"
    if !FileManager.default.fileExists(atPath: link) {
      try FileManager.default.createSymbolicLink(
        atPath: link, withDestinationPath: BuildProducts.plugin("example-swift"))
    }
    try directory.write(
      "patchbay.toml", (Self.config(directory: directory.path, socket: socketPath, record: recordPath) + extra).toml)
    let process = try ChildProcess(BuildProducts.executable("patchbay"), ["run", "--config", configPath])
    hub = process
    try process.waitForLine(containing: "hub started", within: 60)
    try eventually("control socket", within: 30) { FileManager.default.fileExists(atPath: socketPath) }
  }

  /// Starts patchbay-web on 127.0.0.1, port 0, and reads the port it printed. `launcher` runs it
  /// (`unshare ...`, `setpriv ...`: its program and arguments, patchbay-web's path follows).
  func startWeb(extra: [String] = [], launcher: [String] = []) throws {
    (web, port) = try Self.startWeb(socket: socketPath, extra: extra, launcher: launcher)
  }

  /// `patchbay-web --listen 127.0.0.1:0 --socket SOCKET EXTRA...` (under `launcher`, if any),
  /// once it listens; the port it chose and printed.
  static func startWeb(socket: String, extra: [String] = [], launcher: [String] = []) throws -> (ChildProcess, Int) {
    let arguments = ["--listen", "127.0.0.1:0", "--socket", socket] + extra
    let program = BuildProducts.executable("patchbay-web")
    let process =
      try launcher.isEmpty
      ? ChildProcess(program, arguments)
      : ChildProcess(launcher[0], Array(launcher.dropFirst()) + [program] + arguments)
    try process.waitForLine(containing: "patchbay-web listening on", within: 60)
    let line = process.lines.first { $0.contains("patchbay-web listening on") } ?? ""
    guard let range = line.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
      let chosen = Int(line[range].split(separator: ":").last ?? "")
    else { throw WebTestError("no port in: \(line)") }
    return (process, chosen)
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
