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
    return lineage(of: credentials.pid, hub: getpid())
  }

  static func lineage(of peer: pid_t, hub: pid_t) -> ControlPeer {
    // 0: a process in a PID namespace the hub cannot see, which its plugins' never are.
    if peer <= 0 || peer == hub { return .outsider }
    var chain: [pid_t] = []
    var current = peer
    while current > 1 {
      guard let parent = parent(of: current) else {
        return chain.isEmpty ? .vanished(peer) : .outsider
      }
      chain.append(current)
      if parent == hub { return .descendant(chain) }
      current = parent
    }
    return .outsider
  }

  /// The ppid field of /proc/PID/stat (after the command name, which may hold spaces and ')').
  static func parent(of pid: pid_t) -> pid_t? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let end = text.lastIndex(of: ")")
    else { return nil }
    let fields = text[text.index(after: end)...].split(separator: " ")
    guard fields.count > 1 else { return nil }
    return pid_t(fields[1])
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
