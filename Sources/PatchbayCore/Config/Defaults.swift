import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Where things live when the config does not say: the installed layout for root or the
/// `patchbay` system user, a per-user place otherwise (so a developer's run needs no root).
public enum Defaults {
  public static let mainConfigFile = "/etc/patchbay/patchbay.toml"

  package static var isSystemInstall: Bool {
    FileManager.default.isWritableFile(atPath: "/var/lib/patchbay")
  }

  public static var stateDirectory: String {
    if let override = ProcessInfo.processInfo.environment["STATE_DIRECTORY"] { return override }
    if isSystemInstall { return "/var/lib/patchbay" }
    return "/tmp/patchbay-\(getuid())/state"
  }

  public static var controlSocket: String {
    if let override = ProcessInfo.processInfo.environment["RUNTIME_DIRECTORY"] { return override + "/control.sock" }
    // The service's socket, whenever the service's runtime directory exists: a user outside
    // group patchbay cannot even look into it (0750), and must be told that, not pointed at a
    // per-user socket that was never there.
    if FileManager.default.fileExists(atPath: "/run/patchbay") {
      return "/run/patchbay/control.sock"
    }
    return "/tmp/patchbay-\(getuid())/control.sock"
  }
}
