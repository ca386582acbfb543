import Foundation
import PatchbayValues
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A hub started by a test: a temp dir with its config, state, plugin directory and control
/// socket; `patchbay run` on it, waited for through the control socket; status, send and the
/// CLI against it. The hub is killed when the test lets go of it.
public final class HubUnderTest: Sendable {
  public let directory: TemporaryDirectory
  private let running = Mutex<ChildProcess?>(nil)

  /// A fresh directory; `plugins` are linked from the build into its plugin directory.
  public init(_ prefix: String = "patchbay-hub", plugins: [String] = []) throws {
    directory = try TemporaryDirectory(prefix)
    try linkBuiltPlugins(plugins)
  }

  public var path: String { directory.path }
  public var configPath: String { path + "/patchbay.toml" }
  public var socketPath: String { path + "/control.sock" }
  public var stateDirectory: String { path + "/state" }
  public var pluginDirectory: String { path + "/plugins" }

  /// The last `patchbay run` started (kept after `stop` for its output).
  public var process: ChildProcess? { running.withLock { $0 } }

  /// The hub's output so far: its log and every plugin's.
  public var log: String { process?.output ?? "" }

  /// Links built plugins (`libpatchbay-plugin-NAME.so`) into the plugin directory.
  public func linkBuiltPlugins(_ names: [String]) throws {
    try FileManager.default.createDirectory(atPath: pluginDirectory, withIntermediateDirectories: true)
    for name in names {
      try FileManager.default.createSymbolicLink(
        atPath: "\(pluginDirectory)/libpatchbay-plugin-\(name).so", withDestinationPath: BuildProducts.plugin(name))
    }
  }

  /// Writes the config: a [hub] section pointing into the temp dir (plus `hubExtra`), then `config`.
  @discardableResult
  public func writeConfig(_ config: HubTOML, hubExtra: String = "") throws -> String {
    try writeConfig(config.toml, hubExtra: hubExtra)
  }

  /// Writes the config: a [hub] section pointing into the temp dir (plus `hubExtra`), then `body`.
  @discardableResult
  public func writeConfig(_ body: String, hubExtra: String = "") throws -> String {
    try directory.write(
      "patchbay.toml",
      """
      [hub]
      state_directory = "\(stateDirectory)"
      control_socket = "\(socketPath)"
      plugin_path = ["\(pluginDirectory)"]
      \(hubExtra)

      \(body)
      """)
  }

  /// Starts `patchbay run` and waits until it started its instances and its control socket
  /// answers `status`. `launcher` wraps the command line (a hub in a network namespace of the
  /// test's own: `AvahiUnderTest.inResponderNamespace`).
  public func start(
    environment: [String: String] = [:],
    launcher: (_ executable: String, _ arguments: [String]) -> (String, [String]) = { ($0, $1) },
    within seconds: Double = 90
  ) throws {
    let (executable, arguments) = launcher(BuildProducts.executable("patchbay"), ["run", "--config", configPath])
    // The system bus unless the test names another: a test of libavahi-client in this process
    // sets DBUS_SYSTEM_BUS_ADDRESS for the whole process (AvahiUnderTest.inProcessBusSocket),
    // and a hub inheriting it would advertise its bridges on that test's private avahi-daemon.
    let systemBus = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/run/dbus/system_bus_socket"]
    let process = try ChildProcess(
      executable, arguments, environment: environment.merging(systemBus) { given, _ in given })
    running.withLock { $0 = process }
    try eventually("the hub to start; output so far:\n\(process.output)", within: seconds) {
      process.lines.contains { $0.contains("hub started") } || !process.isRunning
    }
    guard process.isRunning else { throw HubUnderTestError("the hub exited while starting:\n\(process.output)") }
    try eventually("the hub's control socket to answer", within: seconds) { (try? status()) != nil }
  }

  /// Waits until each named instance is running (its plugin created and started).
  public func waitUntilRunning(_ instances: String..., within seconds: Double = 90) throws {
    try eventually("\(instances) running; output so far:\n\(log)", within: seconds) {
      try instances.allSatisfy { try instanceStatus($0)?["phase"] as? String == "running" }
    }
  }

  /// Waits until `instance` runs in a process none of `old` (a restart, a crashed process's
  /// replacement); its pid. `what` says what is awaited, should the deadline pass.
  @discardableResult
  public func waitForNewProcess(
    of instance: String, replacing old: Int32?..., what: @autoclosure () -> String, within seconds: Double = 300
  ) throws -> Int32 {
    var new: Int32?
    try eventually(what(), within: seconds) {
      new = try pid(of: instance)
      return new.map { !old.contains($0) } ?? false
    }
    return new!
  }

  /// Sends SIGTERM and waits for the exit; returns the exit status.
  @discardableResult
  public func stop(within seconds: Double = 60) throws -> Int32 {
    guard let process else { return 0 }
    return try process.terminate(within: seconds)
  }

  // MARK: Control socket

  /// One request over the control socket (a JSON line); the hub's JSON answer.
  public func request(_ fields: [String: String]) throws -> [String: Any] {
    let data = try JSONSerialization.data(withJSONObject: fields)
    let answer = try ControlSocketClient.exchange(
      path: socketPath, request: String(decoding: data, as: UTF8.self) + "\n"
    ) { $0.contains("\n") }
    guard let json = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any] else {
      throw HubUnderTestError("not a JSON answer: \(answer)")
    }
    return json
  }

  /// `patchbay status` as JSON (the `status` object of the answer).
  public func status() throws -> [String: Any] {
    let answer = try request(["command": "status"])
    guard answer["ok"] as? Bool == true, let status = answer["status"] as? [String: Any] else {
      throw HubUnderTestError("status refused: \(answer)")
    }
    return status
  }

  /// One instance's entry of the status.
  public func instanceStatus(_ name: String) throws -> [String: Any]? {
    (try status()["instances"] as? [[String: Any]])?.first { $0["name"] as? String == name }
  }

  /// The pid of an instance's plugin process while it runs.
  public func pid(of instance: String) throws -> Int32? {
    guard let entry = try instanceStatus(instance), entry["phase"] as? String == "running" else { return nil }
    return (entry["pid"] as? NSNumber)?.int32Value
  }

  /// Sends a value into an input port (what `patchbay send` does); throws when the hub refuses.
  public func send(_ address: String, _ value: String) throws {
    let answer = try request(["command": "send", "address": address, "value": value])
    guard answer["ok"] as? Bool == true else {
      throw HubUnderTestError("send \(address) \(value): \(answer["message"] as? String ?? "refused")")
    }
  }

  // MARK: The CLI

  /// Runs `patchbay SUBCOMMAND --config CONFIG ARGUMENTS...`. Its output goes to a file, read
  /// once it exited: the end of a pipe can wait for any child that inherited its write end.
  public func cli(_ arguments: String...) throws -> (status: Int32, output: String) {
    try cli(arguments: arguments)
  }

  /// `environment` and `launcher` as for `start` (a command that must reach a test's private
  /// avahi-daemon, or run in its namespace).
  public func cli(
    arguments: [String], environment: [String: String] = [:],
    launcher: (_ executable: String, _ arguments: [String]) -> (String, [String]) = { ($0, $1) }
  ) throws -> (status: Int32, output: String) {
    var args = arguments
    args.insert(contentsOf: ["--config", configPath], at: min(1, args.count))
    let output = path + "/cli-\(UUID().uuidString.prefix(8)).out"
    let (executable, wrapped) = launcher(
      "/bin/sh",
      ["-c", #"out="$1"; shift; exec "$@" > "$out" 2>&1"#, "sh", output, BuildProducts.executable("patchbay")] + args)
    let child = try ChildProcess(executable, wrapped, environment: environment)
    let status = try child.waitForExit(within: 120)
    return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
  }

  /// `patchbay check` of this config.
  public func check() throws -> (status: Int32, output: String) { try cli("check") }

  /// A fresh hub with the example C counter compiled as `example-c` and a config of one
  /// instance of it, `counter` (with `settings`): the smallest hub that runs a plugin.
  public static func withCounter(
    _ prefix: String = "patchbay-it", _ settings: KeyValuePairs<String, HubTOML.Value> = [:]
  )
    throws -> HubUnderTest
  {
    let hub = try HubUnderTest(prefix)
    try hub.compileCPlugin(name: "example-c", source: counterSource)
    try hub.writeConfig(HubTOML().instance("counter", plugin: "example-c", settings))
    return hub
  }

  /// `patchbay check` of a fresh hub's config with one instance, `[instances.NAME]` running
  /// `plugin` (linked from the build), its settings `settings` as written (a test of what check
  /// says about them keeps its TOML text). `file` is the config's path, which check must name.
  public static func checkInstance(_ name: String, plugin: String, _ settings: String) throws -> (
    status: Int32, output: String, file: String
  ) {
    let hub = try HubUnderTest("patchbay-check-\(plugin)", plugins: [plugin])
    let file = try hub.writeConfig("[instances.\(name)]\nplugin = \"\(plugin)\"\n" + settings)
    let result = try hub.check()
    return (result.status, result.output, file)
  }

  // MARK: Files and processes

  /// Lines of a file in the temp dir (a recorder's, a module's); empty if absent.
  public func lines(_ file: String) -> [String] {
    ((try? String(contentsOfFile: path + "/" + file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  /// A JSON file under an instance's state directory, parsed.
  public func savedState(instance: String, file: String) -> [String: Any]? {
    guard
      let data = FileManager.default.contents(
        atPath: StateLayout.instanceDirectory(instance, in: stateDirectory) + "/\(file)")
    else {
      return nil
    }
    return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
  }

  /// Living child processes of the hub (the plugin hosts). Not a zombie: a config parse child
  /// that has ended is left for swift-subprocess to reap a moment later.
  public func pluginPIDs() -> [Int32] {
    guard let process else { return [] }
    return Self.children(of: process.pid).filter(Self.isAlive)
  }

  /// Children of every thread of `pid` (the hub may spawn from a thread of its own).
  public static func children(of pid: Int32) -> [Int32] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.flatMap { task in
      let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
      return text.split(separator: " ").compactMap { Int32($0) }
    }
  }

  /// Whether `pid` runs (a zombie is dead for our purposes).
  public static func isAlive(_ pid: Int32) -> Bool {
    guard kill(pid, 0) == 0 else { return false }
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    return !stat.contains(") Z ")
  }

  // MARK: C plugins

  /// The repository checkout these tests were built from.
  public static let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()
  public static let headerDirectory = repositoryRoot + "/Sources/CPatchbayPlugin/include"
  /// The example C counter's source.
  public static let counterSource =
    (try? String(contentsOfFile: repositoryRoot + "/Plugins/example-c/counter.c", encoding: .utf8)) ?? ""

  /// Compiles a C plugin into the plugin directory as `NAME.so` with the system compiler and the
  /// header alone. The example counter's descriptor is renamed to `descriptorName` (default:
  /// NAME), since a plugin's descriptor name must match the name it is found under.
  public func compileCPlugin(
    name: String, source: String, descriptorName: String? = nil, defines: [String] = [],
    includeDirectory: String = HubUnderTest.headerDirectory
  ) throws {
    let renamed = source.replacingOccurrences(
      of: #".name = "example-c","#, with: ".name = \"\(descriptorName ?? name)\",")
    let sourcePath = try directory.write("src/\(name).c", renamed)
    try FileManager.default.createDirectory(atPath: pluginDirectory, withIntermediateDirectories: true)
    let result = try runProgram(
      "/usr/bin/env",
      ["cc", "-shared", "-fPIC", "-Wall", "-I", includeDirectory] + defines
        + ["-o", "\(pluginDirectory)/\(name).so", sourcePath])
    guard result.status == 0 else { throw HubUnderTestError("cc failed: \(result.output)") }
  }

  deinit { process?.signal(SIGKILL) }
}

public struct HubUnderTestError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
