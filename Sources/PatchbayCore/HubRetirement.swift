import Dispatch
import PatchbayValues

/// How a removed instance's last run went.
package enum RetireOutcome: Sendable, Equatable {
  /// The plugin undid what the instance left outside the hub; what it logged meanwhile.
  case retired([String])
  /// The plugin has nothing to undo (no `retire`, or it said so).
  case nothingToRetire
  /// It could not (its peer is away, or it failed): tried again at the next start or reload.
  case failed(String)
}

/// Runs a removed instance's plugin once more, with its last config and state directory, to
/// call its `retire` (ABI 1.3): the instance spec, its plugin library, its state directory,
/// the plugin host.
package typealias InstanceRetirer =
  @Sendable (_ spec: InstanceSpec, _ library: String, _ stateDirectory: String, _ host: String) -> RetireOutcome

extension Hub {
  /// Nothing an instance announced may outlive its config: an instance removed from the
  /// config (by a reload, or while the hub was down) gets its plugin's `retire` once, in the
  /// background, so a broker's retained Home Assistant configs go with it. One that could not
  /// (its broker away) is kept and tried again at the next start or reload. Called after a
  /// start and after a reload.
  package func retireRemovedInstances() {
    guard let retirer else { return }
    guard !store.noteInstances(config.instances).isEmpty,
      retiring.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
    else { return }
    let locator = self.locator
    let stateDirectory = config.hub.stateDirectory
    DispatchQueue.global().async { [self] in
      defer { retiring.store(false, ordering: .releasing) }
      // Instances a reload removes while this pass runs join it; each is tried once per pass.
      var tried: Set<String> = []
      while let spec = store.pendingRetirements.first(where: { !tried.contains($0.name) }) {
        tried.insert(spec.name)
        // Back in the config meanwhile: its running instance owns the state directory now.
        if config.instances.contains(where: { $0.name == spec.name }) { continue }
        guard let library = locator.library(for: spec.plugin) else {
          logger.warning(
            "removed instance \(spec.name): plugin '\(spec.plugin)' is not installed, so it cannot undo what it left outside the hub; tried again at the next start or reload"
          )
          continue
        }
        switch retirer(
          spec, library, StateLayout.instanceDirectory(spec.name, in: stateDirectory), locator.hostExecutable)
        {
        case .retired(let lines):
          let said = lines.isEmpty ? "" : " (\(lines.joined(separator: "; ")))"
          logger.notice(
            "retired removed instance \(spec.name) (\(spec.plugin)): it undid what it left outside the hub\(said)")
          store.retired(spec.name)
        case .nothingToRetire:
          store.retired(spec.name)
        case .failed(let why):
          logger.warning(
            "removed instance \(spec.name) (\(spec.plugin)) could not undo what it left outside the hub: \(why); tried again at the next start or reload"
          )
        }
      }
    }
  }
}
