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
    let configured = (try? options.load())
    let locator = PluginLocator(configured: configured?.hub.pluginPath ?? [])
    let installed = PluginCatalog(locator: locator).describeAll()
    if installed.isEmpty { print("no plugins found on \(locator.searchPath.joined(separator: ":"))") }
    for entry in installed { print(entry) }
    guard ports, let config = configured else { return }
    for line in PluginCatalog(locator: locator).describePorts(of: config) { print(line) }
  }
}
