/// How a plugin host ends, by its exit status. The hub trusts what the host says over the wire,
/// not these numbers (a plugin can call exit() with any of them); `patchbay plugin test` and the
/// logs read them. `pluginCalledExit` is set by the host's C exit guard
/// (`pc_install_host_exit_guards`, process_control.c), which keeps the same number.
public enum HostExitCode: Int32, Sendable {
  /// Ended as asked: stopped, or the hub closed its socket.
  case done = 0
  /// The library could not be loaded (or its descriptor was refused).
  case loadFailed = 3
  /// create() or start() failed.
  case lifecycleFailed = 4
  /// The plugin reported a fault (report_fault), or called the host table with a handle that is
  /// not its own.
  case pluginFault = 5
  /// Started with init as its parent: the hub was gone before the host began.
  case orphaned = 6
  /// Started by hand, without the hub's socket (sysexits' EX_USAGE).
  case usage = 64
  /// The hub sent a frame that does not decode (EX_DATAERR): the channel cannot be trusted.
  case badFrameFromHub = 65
  /// The connection to the hub is gone (EX_NOINPUT) while the host still had to report.
  case lostHub = 66
  /// The plugin called exit() itself (EX_SOFTWARE): a failure, whatever status it gave.
  case pluginCalledExit = 70
}
