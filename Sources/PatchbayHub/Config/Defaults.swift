import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Where things live when the config does not say: the installed layout for root or the
/// `patchbay` system user, a per-user place otherwise (so a developer's run needs no root).
public enum Defaults {
  public static let mainConfigFile = "/etc/patchbay/patchbay.toml"

  static var isSystemInstall: Bool {
    FileManager.default.isWritableFile(atPath: "/var/lib/patchbay")
  }

  public static var stateDirectory: String {
    if let override = ProcessInfo.processInfo.environment["STATE_DIRECTORY"] { return override }
    if isSystemInstall { return "/var/lib/patchbay" }
    return "/tmp/patchbay-\(getuid())/state"
  }

  public static var controlSocket: String {
    if let override = ProcessInfo.processInfo.environment["RUNTIME_DIRECTORY"] { return override + "/control.sock" }
    // The service's socket: the hub can write there, or a CLI user of group patchbay reaches it.
    if FileManager.default.isWritableFile(atPath: "/run/patchbay")
      || FileManager.default.fileExists(atPath: "/run/patchbay/control.sock")
    {
      return "/run/patchbay/control.sock"
    }
    return "/tmp/patchbay-\(getuid())/control.sock"
  }
}
