#if canImport(Glibc)
  import Glibc
#endif

/// How many control connections the hub holds, in total and per peer user (SO_PEERCRED), and
/// how long one may wait before it sends its request. An idle connection costs the hub a
/// descriptor: without these, a thousand connections that never send anything (any member of
/// group patchbay can open them) used up the hub's descriptors, and then state writes, plugin
/// starts and the hub itself failed. The total stays a fraction of RLIMIT_NOFILE, so the rest is
/// in reserve for the hub's own work.
///
/// A new connection over a limit takes the place of the oldest one still waiting for its
/// request (of the same user, for the per-user limit): idle connections can delay a `status`,
/// never block it. Only when every connection is busy (a `watch`, a request being answered) is
/// the new one refused.
struct ControlAdmission: Sendable {
  var total: Int
  var perUser: Int
  /// A connection that has not sent a whole request line within this many seconds is closed.
  /// A `watch` stream has sent its request: it is not idle, however quiet.
  var idleSeconds: Int

  /// The limits for the hub's descriptor limit (the soft RLIMIT_NOFILE): a quarter of it, at
  /// most 128; a user may hold a quarter of that.
  static func forDescriptorLimit(_ limit: Int) -> ControlAdmission {
    let total = min(128, max(4, limit / 4))
    return ControlAdmission(total: total, perUser: max(2, total / 4), idleSeconds: 10)
  }

  /// For this process's current soft limit.
  static func current() -> ControlAdmission {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
      return forDescriptorLimit(1024)
    }
    return forDescriptorLimit(Int(clamping: limit.rlim_cur))
  }

  /// The connections open now, in the order they came; what to do with a new one from `user`.
  enum Decision: Equatable {
    case admit
    /// Admit it after closing these waiting connections (by their serial numbers).
    case admitClosing([UInt64])
    case refuse
  }

  struct Open {
    var serial: UInt64
    var user: uid_t
    var waitingForRequest: Bool
  }

  func decide(user: uid_t, open: [Open]) -> Decision {
    var closing: [UInt64] = []
    let mine = open.filter { $0.user == user }
    if mine.count >= perUser {
      guard let oldest = mine.first(where: \.waitingForRequest) else { return .refuse }
      closing.append(oldest.serial)
    }
    if open.count - closing.count >= total {
      guard let oldest = open.first(where: { $0.waitingForRequest && !closing.contains($0.serial) }) else {
        return .refuse
      }
      closing.append(oldest.serial)
    }
    return closing.isEmpty ? .admit : .admitClosing(closing)
  }
}
