import ArgumentParser
import Foundation
import PatchbayHub
import PatchbayValues
import PatchbayWire

/// `patchbay plugin test LIBRARY`: runs a plugin in plugin-host processes with the checks of
/// the conformance mode on and reports, per ABI rule, pass or fail with the reason. The plugin
/// runs in children, so a crash or hang in it is reported, never suffered.
struct PluginTestCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "test",
    abstract: "Check a plugin library against the ABI's rules (exit status 1 when one fails).",
    discussion: """
      Runs the plugin's whole lifecycle (create, start, one value on each input port, stop,
      destroy) in a plugin host that records every refused call, then creates it again with
      config keys left out or of the wrong type. Rules: \(ConformanceRule.allCases.map(\.rawValue).joined(separator: ", ")).
      """)

  @Argument(help: "The plugin: a library path (with a / or ending in .so), or the name of an installed plugin.")
  var library: String

  @Option(
    help: ArgumentHelp(
      "A TOML file with the instance's config: its keys, or a snippet with one [instances.NAME] section.",
      valueName: "file"))
  var config: String?

  @Flag(help: "Print the report as JSON.")
  var json = false

  @Option(help: "How long a callback may take, in milliseconds (default: the config's hang_timeout_ms, else 10000).")
  var hangTimeoutMs: Int?

  @Option(help: "How long to watch the running plugin, and the plugin after stop(), in milliseconds.")
  var observeMs = 500

  func run() throws {
    let locator = PluginLocator()
    let path: String
    if library.contains("/") || (library.hasSuffix(".so") && FileManager.default.fileExists(atPath: library)) {
      // Absolute: dlopen looks a bare file name up on the library path, not here.
      path = URL(fileURLWithPath: library).standardizedFileURL.path
    } else if let found = locator.library(for: library) {
      path = found
    } else {
      printError("no plugin '\(library)' on \(locator.searchPath.joined(separator: ":")); give the library's path")
      throw ExitCode(2)
    }
    guard FileManager.default.isReadableFile(atPath: path) else {
      printError("\(path): no such file")
      throw ExitCode(2)
    }
    var instance = InstanceConfigFile(pluginConfig: .object([]), hangTimeout: nil)
    if let config {
      do throws(InstanceConfigFile.Problem) {
        instance = try InstanceConfigFile.read(config, plugin: PluginFileName.pluginName(ofPath: path))
      } catch {
        printError(error.description)
        throw ExitCode(2)
      }
    }
    let hangDeadline = hangTimeoutMs.map { Double($0) / 1000 } ?? instance.hangTimeout ?? 10
    let stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "patchbay-plugin-test-\(getpid())"
    ).path
    try? FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: stateDirectory) }

    // Each run may spend a deadline per callback and two observation windows.
    let overall = hangDeadline * 8 + Double(observeMs) / 500 + 30
    // The plugin runs under the default sandbox an instance with this config would get.
    func sandboxArguments(_ pluginConfig: JSONValue) -> [String] {
      let spec = InstanceSpec(
        name: "conformance", plugin: PluginFileName.pluginName(ofPath: path) ?? "", logLevel: "debug",
        supervision: SupervisionSettings(), pluginConfig: pluginConfig, file: config ?? "")
      let policy = SandboxPolicy(spec: spec, libraryPath: path, stateDirectory: stateDirectory)
      policy.createMissingOutputs()
      // The host adds the library and the state directory itself; `--sandbox on` is implied.
      return Array(policy.hostArguments.dropFirst(2))
    }
    func session(_ stage: String, _ pluginConfig: JSONValue) -> HostSession {
      HostSession.run(
        host: locator.hostExecutable,
        arguments: [stage, path, pluginConfig.description, stateDirectory, String(observeMs)]
          + sandboxArguments(pluginConfig),
        hangDeadline: hangDeadline, overallDeadline: overall)
    }
    let lifecycle = session("lifecycle", instance.pluginConfig)
    var configRuns: [(variant: ConfigVariant, session: HostSession)] = []
    if lifecycle.events("descriptor").first?[1] == "ok" {
      for variant in ConfigVariant.variants(of: instance.pluginConfig) {
        configRuns.append((variant, session("create", variant.config)))
      }
    }
    var judge = ConformanceJudge(lifecycle: lifecycle, configRuns: configRuns, hangDeadline: hangDeadline)
    // A lifecycle that fails confined runs once more unconfined: the sandbox rule fails only
    // when that one passes (the plugin needs something its instance would not be given).
    if judge.lifecycleFailedConfined {
      judge.unconfined = HostSession.run(
        host: locator.hostExecutable,
        arguments: ["lifecycle", path, instance.pluginConfig.description, stateDirectory, String(observeMs)]
          + ["--sandbox", "off"],
        hangDeadline: hangDeadline, overallDeadline: overall)
    }
    let verdicts = judge.verdicts()
    let plugin = lifecycle.events("descriptor").first.flatMap {
      $0.count >= 3 && $0[1] == "ok" ? $0[2].split(separator: ",").first.map(String.init) : nil
    }
    let report = ConformanceReport(library: path, plugin: plugin, verdicts: verdicts)
    print(json ? report.json : report.text)
    if !report.passed { throw ExitCode(1) }
  }
}
