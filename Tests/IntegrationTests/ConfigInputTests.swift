import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 29.10: config input that used to pass `check` and then misbehave (a name cut at a
/// NUL, a config too big for the plugin's load message, a FIFO in conf.d, a state directory
/// nothing can be saved in, a control socket path too long to bind) is refused by `check`
/// and `run` with the file, the key and what would be right.
@Suite(.serialized) struct ConfigInputTests {
  func harness() throws -> HubUnderTest {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "example-c", source: HubUnderTest.counterSource)
    return harness
  }

  /// The config with its own `state_directory` or `control_socket` (the harness's otherwise).
  func writeConfig(_ harness: HubUnderTest, state: String? = nil, socket: String? = nil, _ body: String) throws {
    _ = try harness.directory.write(
      "patchbay.toml",
      """
      [hub]
      state_directory = "\(state ?? harness.stateDirectory)"
      control_socket = "\(socket ?? harness.socketPath)"
      plugin_path = ["\(harness.pluginDirectory)"]

      \(body)
      """)
  }

  /// `patchbay run` on the harness's config, expected to refuse and exit: its output.
  func refusedRun(_ harness: HubUnderTest) throws -> String {
    let run = try ChildProcess(BuildProducts.executable("patchbay"), ["run", "--config", harness.configPath])
    let status = try run.waitForExit(within: 60)
    #expect(status != 0, "\(run.output)")
    return run.output
  }

  @Test func instanceNamesWithNULOrControlCharactersAreRefused() throws {
    let harness = try harness()
    try harness.writeConfig(#"[instances."a\u0000b"]"# + "\nplugin = \"example-c\"\n")
    let nul = try harness.check()
    #expect(nul.status != 0)
    #expect(nul.output.contains("patchbay.toml:"), "\(nul.output)")
    #expect(nul.output.contains("NUL"), "\(nul.output)")
    #expect(nul.output.contains("a-z, 0-9 and _"), "\(nul.output)")
    #expect(try refusedRun(harness).contains("NUL"))
    try harness.writeConfig(#"[instances."a\u0007b"]"# + "\nplugin = \"example-c\"\n")
    let bell = try harness.check()
    #expect(bell.status != 0)
    #expect(bell.output.contains(#"'a\u{07}b' is not a valid instance name"#), "\(bell.output)")
    #expect(bell.output.contains("a-z, 0-9 and _"), "\(bell.output)")
  }

  @Test func anOversizedInstanceConfigNamesTheKeyAndTheLimit() throws {
    let harness = try harness()
    let blob = String(repeating: "x", count: 10 * 1024 * 1024)
    try harness.writeConfig("[instances.counter]\nplugin = \"example-c\"\nblob = \"\(blob)\"\n")
    let check = try harness.check()
    #expect(check.status != 0)
    #expect(check.output.contains("instances.counter.blob: too big"), "\(check.output.prefix(2000))")
    #expect(check.output.contains("at most 32 KiB"), "\(check.output.prefix(2000))")
    #expect(!check.output.contains("did not answer"), "\(check.output.prefix(2000))")
    #expect(try refusedRun(harness).contains("instances.counter.blob: too big"))
  }

  @Test func aFIFOInConfDIsNamedAsNotARegularFile() throws {
    let harness = try harness()
    try harness.writeConfig("[instances.counter]\nplugin = \"example-c\"\n")
    try FileManager.default.createDirectory(atPath: harness.path + "/conf.d", withIntermediateDirectories: true)
    let fifo = harness.path + "/conf.d/50-pipe.toml"
    #expect(mkfifo(fifo, 0o644) == 0)
    let check = try harness.check()
    #expect(check.status != 0)
    #expect(check.output.contains("\(fifo): not a regular file (it is a FIFO)"), "\(check.output)")
    #expect(!check.output.contains("bracket"), "\(check.output)")
  }

  @Test func aStateDirectoryNothingCanBeSavedInIsRefused() throws {
    let harness = try harness()
    let body = "[instances.counter]\nplugin = \"example-c\"\n"
    // A regular file, and a directory under one.
    let file = try harness.directory.write("not-a-directory", "")
    for path in [file, file + "/state"] {
      try writeConfig(harness, state: path, body)
      let check = try harness.check()
      #expect(check.status != 0)
      #expect(check.output.contains("hub.state_directory: '\(path)'"), "\(check.output)")
      #expect(check.output.contains("is not a directory"), "\(check.output)")
      #expect(try refusedRun(harness).contains("hub.state_directory"))
    }
    // Empty: an error, not silently the config's folder.
    try writeConfig(harness, state: "", body)
    let empty = try harness.check()
    #expect(empty.status != 0)
    #expect(empty.output.contains("hub.state_directory: must not be empty"), "\(empty.output)")
    // Not writable for the user who runs it (tests run as root: checked as nobody).
    let locked = harness.path + "/locked"
    try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
    chmod(harness.path, 0o755)
    chmod(locked, 0o755)
    chmod(harness.configPath, 0o644)
    try writeConfig(harness, state: locked + "/state", body)
    let asNobody = try runProgram(
      "/usr/bin/setpriv",
      [
        "--reuid=nobody", "--regid=nogroup", "--clear-groups", BuildProducts.executable("patchbay"), "check",
        "--config", harness.configPath,
      ])
    #expect(asNobody.status != 0)
    #expect(
      asNobody.output.contains("does not exist and cannot be created: '\(locked)' is not writable"),
      "\(asNobody.output)")
    // Missing but creatable: fine, and `run` creates it.
    let fresh = harness.path + "/fresh/state"
    try writeConfig(harness, state: fresh, body)
    let ok = try harness.check()
    #expect(ok.status == 0, "\(ok.output)")
    try harness.start()
    var isDirectory: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: fresh, isDirectory: &isDirectory) && isDirectory.boolValue)
    try harness.stop()
  }

  @Test func aControlSocketPathOverTheSunPathLimitIsRefused() throws {
    let harness = try harness()
    let long = harness.path + "/" + String(repeating: "s", count: 120) + ".sock"
    try writeConfig(harness, socket: long, "[instances.counter]\nplugin = \"example-c\"\n")
    let check = try harness.check()
    #expect(check.status != 0)
    #expect(check.output.contains("hub.control_socket: '\(long)' is \(long.utf8.count) bytes long"), "\(check.output)")
    #expect(check.output.contains("at most 107 bytes"), "\(check.output)")
  }
}
