import ArgumentParser

/// `patchbay plugin ...`: tools for plugin authors.
struct PluginCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "plugin", abstract: "Tools for plugin authors (test: check a plugin against the ABI's rules).",
    subcommands: [PluginTestCommand.self])
}
