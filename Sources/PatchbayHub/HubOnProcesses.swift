import PatchbayCore

extension Hub {
  /// The hub as `patchbay run` runs it: every instance in its own plugin-host process.
  public convenience init(config: HubConfig) { self.init(config: config, launcher: PluginLaunchers.processes) }
}
