#if canImport(Glibc)
  import Glibc
#endif

/// The hub's limit on open files. Outside systemd the soft limit is often 1024 while the hard
/// one is far higher; the hub raises the soft one to the hard one at start (what any process
/// may do), so control connections, plugin hosts and state writes have room. The control
/// server's limits (`ControlAdmission`) follow from the result.
enum DescriptorLimit {
  /// Raises the soft RLIMIT_NOFILE to the hard one; returns (before, after) soft limits.
  @discardableResult
  static func raiseToHard() -> (before: UInt64, after: UInt64) {
    let resource = Int32(RLIMIT_NOFILE.rawValue)
    var limit = rlimit()
    guard getrlimit(resource, &limit) == 0 else { return (0, 0) }
    let before = UInt64(limit.rlim_cur)
    guard limit.rlim_cur < limit.rlim_max else { return (before, before) }
    var raised = limit
    raised.rlim_cur = limit.rlim_max
    guard setrlimit(resource, &raised) == 0 else { return (before, before) }
    return (before, UInt64(raised.rlim_cur))
  }
}
