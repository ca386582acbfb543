import Foundation
import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay run` with a schedule instance, in a temp dir: config, plugins, `check`, and the
/// instance's saved state.
final class ScheduleHub: @unchecked Sendable {
  let directory: TemporaryDirectory
  private(set) var hub: ChildProcess?

  init(plugins: [String]) throws {
    directory = try TemporaryDirectory("patchbay-schedule")
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

  /// The instance's saved schedule state, as JSON.
  func savedState(instance: String = "clock") -> [String: Any]? {
    guard let data = FileManager.default.contents(atPath: "\(stateDirectory)/instances/\(instance)/schedule.json")
    else { return nil }
    return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
  }

  deinit { hub?.signal(SIGKILL) }
}
