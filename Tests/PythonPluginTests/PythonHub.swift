import Foundation
import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A hub under test with the python plugin: a temp dir holding its config, state, control socket,
/// the plugin directory (links to the built plugins) and the Python modules the instances run.
final class PythonHub: @unchecked Sendable {
  let directory: TemporaryDirectory
  var hub: ChildProcess?

  init() throws {
    directory = try TemporaryDirectory("patchbay-python")
    let plugins = directory.path + "/plugins"
    try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
    for name in ["python", "example-c", "example-swift"] {
      try FileManager.default.createSymbolicLink(
        atPath: "\(plugins)/libpatchbay-plugin-\(name).so", withDestinationPath: BuildProducts.plugin(name))
    }
  }

  var path: String { directory.path }
  var configPath: String { path + "/patchbay.toml" }

  static let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()

  /// Writes a Python module into the temp dir and returns its path.
  @discardableResult
  func writeModule(_ name: String, _ source: String) throws -> String {
    try directory.write("modules/\(name).py", source)
  }

  func writeConfig(_ body: String) throws {
    try directory.write(
      "patchbay.toml",
      """
      [hub]
      state_directory = "\(path)/state"
      control_socket = "\(path)/control.sock"
      plugin_path = ["\(path)/plugins"]

      \(body)
      """)
  }

  /// Config for the example C counter (`counter`: input `increment`, `set`; output `count`).
  static let counter = """
    [instances.counter]
    plugin = "example-c"
    """

  /// Config for a recorder: an example-swift instance `probe` with one input per "NAME:TYPE:KIND",
  /// each value it gets appended to probe.jsonl (read with `lines("probe.jsonl")`).
  func probe(_ ports: String...) -> String {
    let entries = ports.map { port in
      let part = port.split(separator: ":")
      return #"{ name = "\#(part[0])", type = "\#(part[1])", kind = "\#(part[2])" }"#
    }
    return """
      [instances.probe]
      plugin = "example-swift"
      record = "\(path)/probe.jsonl"
      ports = [\(entries.joined(separator: ", "))]
      """
  }

  /// Starts `patchbay run` and waits until the hub said it started.
  func start() throws {
    let process = try ChildProcess(BuildProducts.executable("patchbay"), ["run", "--config", configPath])
    hub = process
    try process.waitForLine(containing: "hub started", within: 60)
    try eventually("control socket", within: 30) { FileManager.default.fileExists(atPath: path + "/control.sock") }
  }

  /// Runs a `patchbay` subcommand with this config. Its output goes to a file, read once it
  /// exited: waiting for a pipe's end of stream sometimes took 10 s here (the test process itself
  /// still held the pipe's write end), which made these tests slow at random.
  func cli(_ arguments: String...) throws -> (status: Int32, output: String) {
    var args = arguments
    args.insert(contentsOf: ["--config", configPath], at: 1)
    let output = path + "/cli-\(UUID().uuidString.prefix(8)).out"
    let child = try ChildProcess(
      "/bin/sh",
      ["-c", #"out="$1"; shift; exec "$@" > "$out" 2>&1"#, "sh", output, BuildProducts.executable("patchbay")] + args)
    let status = try child.waitForExit(within: 120)
    return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
  }

  /// Lines of a file the test's modules or the example-swift recorder write (empty if absent).
  func lines(_ file: String) -> [String] {
    ((try? String(contentsOfFile: path + "/" + file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  /// The pid of a running instance, from `patchbay status --json`.
  func pid(of instance: String) throws -> Int32? {
    let status = try cli("status", "--json")
    guard status.status == 0,
      let json = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any],
      let instances = json["instances"] as? [[String: Any]],
      let entry = instances.first(where: { $0["name"] as? String == instance }),
      entry["phase"] as? String == "running"
    else { return nil }
    return entry["pid"] as? Int32
  }

  func waitForLogLine(containing text: String) throws {
    try hub?.waitForLine(containing: text, within: 60)
  }

  /// The hub's output so far (its log and every plugin's).
  var log: String { hub?.output ?? "" }

  deinit { hub?.signal(SIGKILL) }
}
