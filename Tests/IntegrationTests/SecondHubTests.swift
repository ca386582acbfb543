import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// One hub per state directory and control socket: a second `patchbay run` refuses at once and
/// names the first, which keeps running and answering; a hub only ever removes a stale socket.
@Suite(.serialized) struct SecondHubTests {
  func startFirstHub() throws -> HubUnderTest {
    let harness = try HubUnderTest.withCounter("patchbay-second")
    try harness.start()
    try harness.waitUntilRunning("counter")
    return harness
  }

  /// A second hub's `[hub]` table, whose paths may be the first's.
  static func hub(state: String, socket: String, plugins: String) -> HubTOML {
    HubTOML().table(
      "hub", ["state_directory": .string(state), "control_socket": .string(socket), "plugin_path": [.string(plugins)]])
  }

  /// `patchbay run` on `config`, which must end by itself; its exit status and output.
  func runAndWaitForExit(_ config: String) throws -> (status: Int32, output: String) {
    let second = try ChildProcess(BuildProducts.executable("patchbay"), ["run", "--config", config])
    let status = try second.waitForExit(within: 60)
    return (status, second.output)
  }

  @Test func aSecondHubOnTheSameConfigRefusesAndNamesTheFirst() throws {
    let first = try startFirstHub()
    defer { _ = try? first.stop() }
    let (status, output) = try runAndWaitForExit(first.configPath)
    #expect(status == 1, "\(output)")
    #expect(output.contains("another hub (pid \(first.process!.pid))"), "\(output)")
    #expect(!output.contains("hub started"), "\(output)")
    // The first hub still owns its socket and its lock.
    #expect(try first.instanceStatus("counter")?["phase"] as? String == "running")
    let lock = try String(contentsOfFile: first.stateDirectory + "/hub.lock", encoding: .utf8)
    #expect(lock.trimmingCharacters(in: .whitespacesAndNewlines) == "\(first.process!.pid)")
  }

  @Test func aSecondHubWhosePluginIsNotInstalledRefusesToo() throws {
    let first = try startFirstHub()
    defer { _ = try? first.stop() }
    let config = try first.directory.write(
      "other.toml",
      Self.hub(state: first.stateDirectory, socket: first.socketPath, plugins: first.path + "/no-plugins")
        .instance("lamp", plugin: "not-installed").toml)
    let (status, output) = try runAndWaitForExit(config)
    #expect(status == 1, "\(output)")
    #expect(output.contains("another hub (pid \(first.process!.pid))"), "\(output)")
    #expect(FileManager.default.fileExists(atPath: first.socketPath))
    #expect(try first.instanceStatus("counter")?["phase"] as? String == "running")
  }

  @Test func aHubWithItsOwnStateButTheSameSocketRefuses() throws {
    let first = try startFirstHub()
    defer { _ = try? first.stop() }
    let config = try first.directory.write(
      "other-state.toml",
      Self.hub(state: first.path + "/other-state", socket: first.socketPath, plugins: first.pluginDirectory)
        .instance("counter", plugin: "example-c").toml)
    let (status, output) = try runAndWaitForExit(config)
    #expect(status == 1, "\(output)")
    #expect(output.contains("control socket \(first.socketPath) is in use"), "\(output)")
    #expect(try first.instanceStatus("counter")?["phase"] as? String == "running")
  }

  @Test func aHubKilledWithSIGKILLLeavesNothingInTheNextOnesWay() throws {
    let first = try startFirstHub()
    first.process!.signal(SIGKILL)
    _ = try first.process!.waitForExit(within: 60)
    // Its socket file stays behind, stale; the lock went with the process.
    #expect(FileManager.default.fileExists(atPath: first.socketPath))
    try first.start()
    try first.waitUntilRunning("counter")
    _ = try first.stop()
  }

  @Test func aControlSocketPathThatIsARegularFileIsNeverDeleted() throws {
    let harness = try HubUnderTest.withCounter("patchbay-socketfile")
    try "precious\n".write(toFile: harness.socketPath, atomically: false, encoding: .utf8)
    let check = try harness.check()
    #expect(check.status == 1, "\(check.output)")
    #expect(check.output.contains("control_socket"), "\(check.output)")
    #expect(check.output.contains("a regular file"), "\(check.output)")
    let (status, output) = try runAndWaitForExit(harness.configPath)
    #expect(status == 1, "\(output)")
    #expect(output.contains("would replace a regular file"), "\(output)")
    #expect(try String(contentsOfFile: harness.socketPath, encoding: .utf8) == "precious\n")
  }
}
