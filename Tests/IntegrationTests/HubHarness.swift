import Foundation
import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A hub under test: a temp dir with its config, state and control socket, and helpers to run
/// `patchbay` commands against it.
final class HubHarness: @unchecked Sendable {
  let directory: TemporaryDirectory
  var hub: ChildProcess?

  init() throws { directory = try TemporaryDirectory("patchbay-it") }

  var configPath: String { directory.path + "/patchbay.toml" }
  var socketPath: String { directory.path + "/control.sock" }

  /// Writes the config: a [hub] section pointing into the temp dir, then `body`.
  @discardableResult
  func writeConfig(_ body: String, hubExtra: String = "") throws -> String {
    try directory.write(
      "patchbay.toml",
      """
      [hub]
      state_directory = "\(directory.path)/state"
      control_socket = "\(socketPath)"
      plugin_path = ["\(directory.path)/plugins"]
      \(hubExtra)

      \(body)
      """)
  }

  /// Starts `patchbay run` and waits until the hub said it started.
  func start(environment: [String: String] = [:]) throws {
    let process = try ChildProcess(
      BuildProducts.executable("patchbay"), ["run", "--config", configPath], environment: environment)
    hub = process
    try process.waitForLine(containing: "hub started", within: 60)
    try eventually("control socket", within: 30) { FileManager.default.fileExists(atPath: socketPath) }
  }

  /// Runs a `patchbay` subcommand with this config.
  func cli(_ arguments: String...) throws -> (status: Int32, output: String) {
    var args = arguments
    args.insert(contentsOf: ["--config", configPath], at: 1)
    return try runProgram(BuildProducts.executable("patchbay"), args)
  }

  /// Compiles a C plugin into the plugin directory as `NAME.so` with the system compiler and the
  /// header alone. The example counter's descriptor is renamed to `descriptorName` (default:
  /// NAME), since a plugin's descriptor name must match the name it is found under.
  func compileCPlugin(
    name: String, source: String, descriptorName: String? = nil, defines: [String] = [],
    includeDirectory: String = HubHarness.headerDirectory
  ) throws {
    let renamed = source.replacingOccurrences(
      of: #".name = "example-c","#, with: ".name = \"\(descriptorName ?? name)\",")
    let sourcePath = try directory.write("src/\(name).c", renamed)
    try FileManager.default.createDirectory(atPath: directory.path + "/plugins", withIntermediateDirectories: true)
    let result = try runProgram(
      "/usr/bin/env",
      ["cc", "-shared", "-fPIC", "-Wall", "-I", includeDirectory] + defines
        + ["-o", "\(directory.path)/plugins/\(name).so", sourcePath])
    guard result.status == 0 else { throw HarnessError("cc failed: \(result.output)") }
  }

  static let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()
  static let headerDirectory = repositoryRoot + "/Sources/CPatchbayPlugin/include"
  static let counterSource =
    (try? String(contentsOfFile: repositoryRoot + "/Plugins/example-c/counter.c", encoding: .utf8)) ?? ""

  /// Child processes of the hub (the plugin hosts).
  func pluginPIDs() -> [Int32] {
    guard let hub else { return [] }
    return Self.children(of: hub.pid)
  }

  /// Children of every thread of `pid` (the hub spawns from a thread of its own).
  static func children(of pid: Int32) -> [Int32] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.flatMap { task in
      let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
      return text.split(separator: " ").compactMap { Int32($0) }
    }
  }

  static func isAlive(_ pid: Int32) -> Bool {
    guard kill(pid, 0) == 0 else { return false }
    // A zombie is dead for our purposes.
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    return !stat.contains(") Z ")
  }

  /// Lines recorded by an example-swift instance.
  func recorded(_ file: String) -> [String] {
    ((try? String(contentsOfFile: directory.path + "/" + file, encoding: .utf8)) ?? "")
      .split(separator: "\n").map(String.init)
  }

  func stop() throws {
    try hub?.terminate(within: 60)
  }

  deinit { hub?.signal(SIGKILL) }
}

struct HarnessError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// The built Swift plugins, for configs: `plugin_path` holds copies-by-symlink of them.
extension HubHarness {
  func linkBuiltPlugins(_ names: [String]) throws {
    let directory = self.directory.path + "/plugins"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for name in names {
      try FileManager.default.createSymbolicLink(
        atPath: "\(directory)/libpatchbay-plugin-\(name).so", withDestinationPath: BuildProducts.plugin(name))
    }
  }
}
