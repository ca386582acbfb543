/// Where things live under the hub's state directory (`hub.state_directory`,
/// /var/lib/patchbay by default): the one place that spells the layout, for the hub, the
/// plugin tools that work on an instance's files while no hub runs, and the tests.
public enum StateLayout {
  /// The file the running hub holds flock'ed: one hub per state directory, and a plugin tool
  /// changes an instance's files only while it can take the lock.
  public static let hubLockFileName = "hub.lock"

  /// The folder of all instances' own directories.
  public static func instancesDirectory(in stateDirectory: String) -> String { stateDirectory + "/instances" }

  /// Instance NAME's own directory (0700; its plugin's `state_directory`).
  public static func instanceDirectory(_ instance: String, in stateDirectory: String) -> String {
    instancesDirectory(in: stateDirectory) + "/" + instance
  }

  /// The hub's lock file in `stateDirectory`.
  public static func hubLock(in stateDirectory: String) -> String { stateDirectory + "/" + hubLockFileName }
}
