import Foundation
import PatchbayHub

/// A reload of the running hub from its config file (SIGHUP or `patchbay reload`).
enum ConfigReload {
  /// Loads the file, parsing it in a child first (toml++ can abort on malformed input, and a
  /// reload must never take the hub down), and applies it only if it passes the same checks
  /// as `patchbay check`; otherwise the running hub is left exactly as it was.
  static func apply(to hub: Hub, configFile: String) -> Result<ReloadSummary, ConfigErrors> {
    switch ConfigLoader.isolated.load(mainFile: configFile) {
    case .failure(let errors): return .failure(errors)
    case .success(let config):
      do throws(ConfigErrors) {
        return .success(try hub.reload(config))
      } catch {
        return .failure(error)
      }
    }
  }
}
