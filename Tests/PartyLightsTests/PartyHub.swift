import Foundation
import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay run` with a party-lights instance, in a temp dir: config, plugins, CLI commands
/// against its control socket, and the plugin processes' pids.
final class PartyHub: @unchecked Sendable {
  let directory: TemporaryDirectory
  private(set) var hub: ChildProcess?

  init(plugins: [String]) throws {
    directory = try TemporaryDirectory("patchbay-party")
    let folder = directory.path + "/plugins"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for name in plugins {
      try FileManager.default.createSymbolicLink(
        atPath: "\(folder)/libpatchbay-plugin-\(name).so", withDestinationPath: BuildProducts.plugin(name))
    }
  }

  var configPath: String { directory.path + "/patchbay.toml" }
  var stateDirectory: String { directory.path + "/state" }

  func writeConfig(_ body: String) throws {
    try directory.write(
      "patchbay.toml",
      """
      [hub]
      state_directory = "\(stateDirectory)"
      control_socket = "\(directory.path)/control.sock"
      plugin_path = ["\(directory.path)/plugins"]

      \(body)
      """)
  }

  func start() throws {
    let process = try ChildProcess(BuildProducts.executable("patchbay"), ["run", "--config", configPath])
    hub = process
    try process.waitForLine(containing: "hub started", within: 90)
  }

  func stop() throws {
    _ = try hub?.terminate(within: 60)
    hub = nil
  }

  var log: String { hub?.output ?? "" }

  /// `patchbay send PORT VALUE` against this hub; throws when the CLI refuses.
  func send(_ port: String, _ value: String) throws {
    let result = try runProgram(BuildProducts.executable("patchbay"), ["send", "--config", configPath, port, value])
    guard result.status == 0 else { throw PartyHubError("send \(port) \(value): \(result.output)") }
  }

  /// `patchbay check` of this config.
  func check() throws -> (status: Int32, output: String) {
    try runProgram(BuildProducts.executable("patchbay"), ["check", "--config", configPath])
  }

  /// The pid of an instance's plugin process, from `patchbay status --json`.
  func pid(of instance: String) throws -> Int32? {
    let output = try runProgram(BuildProducts.executable("patchbay"), ["status", "--json", "--config", configPath])
      .output
    let json = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
    let entry = (json?["instances"] as? [[String: Any]])?.first { $0["name"] as? String == instance }
    return (entry?["pid"] as? NSNumber)?.int32Value
  }

  /// The party's saved record (capture and phase), as JSON.
  func savedRecord(instance: String = "party") -> [String: Any]? {
    guard let data = FileManager.default.contents(atPath: "\(stateDirectory)/instances/\(instance)/party.json")
    else { return nil }
    return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
  }

  deinit { hub?.signal(SIGKILL) }
}

struct PartyHubError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
