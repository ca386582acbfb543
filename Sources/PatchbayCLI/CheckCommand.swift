import ArgumentParser
import Foundation
import PatchbayHub

/// `patchbay check`: validate without running.
struct CheckCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Check the config (syntax, plugins, ports, route types) without running it; exit 1 on any error.")

  @OptionGroup var options: ConfigOptions

  func run() throws {
    let (config, structural) = ConfigLoader.isolated.loadCollectingErrors(mainFile: options.config)
    // Instances that failed to parse, and files that could not be read, are unknown to the
    // route checks: their routes are not reported a second time.
    let (problems, warnings) = ConfigChecker(config: config).report(
      config, after: structural, files: ConfigLoader.files(mainFile: options.config))
    for warning in warnings { printError("warning: \(warning.description)") }
    guard problems.isEmpty else {
      for problem in problems { printError(problem.description) }
      printError("\(problems.count) problem\(problems.count == 1 ? "" : "s") found")
      throw ExitCode(1)
    }
    if let note = Self.containmentNote(instances: config.instances.count) { printError("note: \(note)") }
    print(
      "\(config.files.joined(separator: ", ")): OK (\(config.instances.count) instances, \(config.routes.count) routes)"
    )
  }

  /// Where the hub would run without cgroups (not a systemd service, no PATCHBAY_CGROUP), its
  /// memory and process limits are per process: what a plugin forks is not counted (issue 41).
  static func containmentNote(instances: Int) -> String? {
    let environment = ProcessInfo.processInfo.environment
    guard instances > 0, environment["INVOCATION_ID"] == nil, (environment["PATCHBAY_CGROUP"] ?? "").isEmpty else {
      return nil
    }
    return "outside systemd (as here) a hub gives each instance rlimits only: memory_limit_mb and open_files hold"
      + " per process, and what a plugin forks is not counted against them. Under the shipped unit"
      + " (Delegate=yes) each instance has a cgroup of its own with memory.max and pids.max"
      + " (docs/architecture.md, \"Containment\")."
  }
}
