import ArgumentParser
import PatchbayHub

/// `patchbay plugins`: what is installed, read inside plugin-host processes.
struct PluginsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "plugins",
    abstract: "List installed plugins; with --ports, the ports each configured instance declares.")

  @OptionGroup var options: ConfigOptions

  @Flag(help: "Also show the ports of every configured instance.")
  var ports = false

  func run() throws {
    // The plugin path comes from whatever part of the config could be read: a mistake in one
    // conf.d file must not hide the plugins that `[hub] plugin_path` points to.
    let (config, problems) = ConfigLoader.isolated.loadCollectingErrors(mainFile: options.config)
    let locator = PluginLocator(configured: config.hub.pluginPath)
    let installed = PluginCatalog(locator: locator).describeAll()
    if installed.isEmpty { print("no plugins found on \(locator.searchPath.joined(separator: ":"))") }
    for entry in installed { print(entry) }
    guard ports else { return }
    guard problems.isEmpty else {
      for problem in problems { printError(problem.description) }
      throw ExitCode(1)
    }
    for line in PluginCatalog(locator: locator).describePorts(of: config) { print(line) }
  }
}
