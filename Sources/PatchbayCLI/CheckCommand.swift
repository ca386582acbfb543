import ArgumentParser
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
    print(
      "\(config.files.joined(separator: ", ")): OK (\(config.instances.count) instances, \(config.routes.count) routes)"
    )
  }
}
