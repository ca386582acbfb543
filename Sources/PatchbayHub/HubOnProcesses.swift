// What this file holds: `Hub.init(config:)`, the hub as `patchbay run` builds it from the core
// (`PatchbayCore.Hub`) and this module's I/O: plugin-host processes and the state file.
import PatchbayCore

extension Hub {
  /// The hub as `patchbay run` runs it: every instance in its own plugin-host process, its
  /// remembered state in a file under the state directory, on the machine's clock.
  public convenience init(config: HubConfig) {
    self.init(
      config: config, launcher: PluginLaunchers.processes, storage: StateFile(directory: config.hub.stateDirectory),
      retirer: InstanceRetirement.retirer, housekeeping: { InheritedChildren.reapIfAnyEnded() })
  }
}
