import CProcessControl
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Who is on the other end of a control connection, as far as the hub's process tree goes.
/// The control socket is not a plugin's: the hub is a subreaper and so is each plugin host, so
/// whatever a plugin starts keeps the hub or a host as an ancestor, while the CLI and
/// patchbay-web never descend from the hub.
enum ControlPeer: Equatable {
  /// Not the hub's descendant (or in a PID namespace the hub cannot see into).
  case outsider
  /// The hub's descendant: the pids from the peer up to the hub's child (last).
  case descendant([pid_t])
  /// Gone before it could be looked at: nothing legitimate connects and leaves unanswered.
  case vanished(pid_t)

  /// The connecting process of an accepted socket (SO_PEERCRED, taken at connect time).
  static func of(socket descriptor: Int32) -> ControlPeer {
    var credentials = pc_peer()
    guard pc_peer_credentials(descriptor, &credentials) == 0 else { return .outsider }
    // Plugins run as the hub's user (no new privileges under the unit); another user's CLI may
    // be invisible in /proc (ProtectProc=invisible), which must not read as gone.
    if credentials.uid != geteuid() { return .outsider }
    let decided = lineage(of: credentials.pid, hub: getpid())
    if case .vanished(let pid) = decided, isInvisible(pid) { return .outsider }
    return decided
  }

  /// Alive, but without an entry in this /proc: a process of the same user in another user
  /// namespace, hidden by the unit's ProtectProc=invisible. Under systemd every service with
  /// PrivateUsers=yes gets a user namespace of its own, and so does each of its Exec commands:
  /// patchbay-web.service and the hub's own `ExecReload=patchbay reload` connect from one
  /// (issue 45, item 13: those were refused as "gone before it could be checked", and
  /// `systemctl reload patchbay` failed). Such a process is never the hub's descendant: a child
  /// stays in its parent's user namespace, the unit's RestrictNamespaces=yes forbids making a
  /// new one, and the plugin host's seccomp filter does too; so the hub's descendants are
  /// always visible to it, and an invisible live peer is an outsider.
  static func isInvisible(_ pid: pid_t, parent: (pid_t) -> pid_t? = parent(of:)) -> Bool {
    guard pid > 1, parent(pid) == nil else { return false }
    // kill(pid, 0): whether the process exists (EPERM: it does, of another user).
    return kill(pid, 0) == 0 || errno == EPERM
  }

  /// Walks from `peer` up to init or the hub. Any doubt refuses: a process that cannot be read
  /// at the start is `vanished`; one that cannot be read partway up (a parent that ended while
  /// the chain was read, or a /proc entry that does not parse) sends the walk back to the start,
  /// since the orphaned process has a new parent by then; a chain that keeps changing, or that
  /// is longer than any real one, is refused as `vanished` too. Only a walk that reaches init
  /// without meeting the hub is an outsider.
  static func lineage(of peer: pid_t, hub: pid_t, parent: (pid_t) -> pid_t? = parent(of:)) -> ControlPeer {
    // 0: a process in a PID namespace the hub cannot see, which its plugins' never are.
    if peer <= 0 || peer == hub { return .outsider }
    for _ in 0..<3 {
      var chain: [pid_t] = []
      var current = peer
      var complete = true
      while current > 1 {
        guard chain.count < 4096, let next = parent(current) else {
          complete = false
          break
        }
        chain.append(current)
        if next == hub { return .descendant(chain) }
        current = next
      }
      if complete { return .outsider }
      if chain.isEmpty { return .vanished(peer) }
    }
    return .vanished(peer)
  }

  /// The ppid field of /proc/PID/stat, read as bytes: the command name before it is whatever a
  /// process set (`prctl(PR_SET_NAME)`, /proc/self/comm: any bytes, not UTF-8, spaces and ')'
  /// included), so the fields are counted from the last ')'.
  static func parent(of pid: pid_t) -> pid_t? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
    return parent(inStat: Array(data))
  }

  /// The ppid in the bytes of a /proc/PID/stat ("PID (COMM) STATE PPID ..."), or nil.
  static func parent(inStat bytes: [UInt8]) -> pid_t? {
    guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
    let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
    guard fields.count > 1, fields[1].count <= 10, fields[1].allSatisfy({ (0x30...0x39).contains($0) }) else {
      return nil
    }
    return pid_t(String(decoding: fields[1], as: UTF8.self))
  }

  /// The instance a descendant's environment names (PATCHBAY_INSTANCE, which a plugin may have
  /// cleared: a hint for the log only, never a decision).
  static func instanceMarker(of pid: pid_t) -> String? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return nil }
    for entry in data.split(separator: 0) {
      let text = String(decoding: entry, as: UTF8.self)
      if text.hasPrefix("PATCHBAY_INSTANCE=") { return String(text.dropFirst("PATCHBAY_INSTANCE=".count)) }
    }
    return nil
  }
}
