import ArgumentParser
import PatchbayHub

/// `patchbay`: the hub daemon and the tools to operate it.
@main
struct PatchbayCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "patchbay",
    abstract: "A home-automation hub whose plugins run isolated, wired by typed routes.",
    version: HubVersion.current,
    subcommands: [
      RunCommand.self, CheckCommand.self, PluginsCommand.self, StatusCommand.self, SendCommand.self,
      WatchCommand.self, ReloadCommand.self, RestartCommand.self, SceneCommand.self, DemoCommand.self,
      ParseTOMLCommand.self, PluginCommand.self, HistoryCommand.self,
    ] + pluginHelperCommands)
}
