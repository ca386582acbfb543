import CProcessControl
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The children the hub inherits, and those it must leave alone.
///
/// Under `patchbay run` the hub is a subreaper: whatever a plugin forks and leaves behind comes
/// to the hub when the plugin's host dies, among them its unreaped zombies. A plugin that forks
/// thousands of children and never waits for them would otherwise fill the machine's process
/// table round after round (issue 41). The hub reaps every ended child it inherited at once:
/// when a host has ended (its orphans are reparented before its own end is reported), and once
/// a second for what ends later. It never reaps a plugin host (each has a waiter thread that
/// reads its exit status) nor a child in the hub's own session (swift-subprocess's children,
/// which their owner reaps): hosts run in sessions of their own, which a plugin cannot leave
/// for the hub's.
enum InheritedChildren {
  /// Plugin hosts spawned and not yet reaped by their waiter. Held while a host is spawned, so
  /// a sweep never sees a host that is not registered yet.
  private static let hosts = Mutex<Set<pid_t>>([])

  /// Spawns a plugin host through `spawn` (which returns its pid, or nil) and registers it.
  static func spawnHost(_ spawn: () -> pid_t?) -> pid_t? {
    hosts.withLock { hosts in
      let pid = spawn()
      if let pid { hosts.insert(pid) }
      return pid
    }
  }

  /// The host's waiter has reaped it.
  static func hostReaped(_ pid: pid_t) { _ = hosts.withLock { $0.remove(pid) } }

  /// Reaps every inherited zombie now; how many. Only in a subreaper (`patchbay run`): a test
  /// process that embeds a hub has children of its own that are none of the hub's business.
  @discardableResult
  static func reap() -> Int {
    guard pc_is_subreaper() != 0 else { return 0 }
    return hosts.withLock { hosts in
      let spare = Array(hosts)
      return Int(spare.withUnsafeBufferPointer { pc_reap_inherited_zombies($0.baseAddress, Int32($0.count)) })
    }
  }

  /// The once-a-second check: one `waitid` when nothing has ended, a sweep when something has.
  static func reapIfAnyEnded() {
    guard pc_has_zombie_child() != 0 else { return }
    reap()
  }
}
