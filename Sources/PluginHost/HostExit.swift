import CProcessControl
import PatchbayWire

#if canImport(Glibc)
  import Glibc
#endif

/// Ends the host process on the host's own decision. Any other `exit()` (a plugin calling it)
/// is reported as a failure by the exit guard (`pc_install_host_exit_guards`).
func hostExit(_ code: HostExitCode) -> Never {
  pc_host_exit_is_deliberate()
  exit(code.rawValue)
}
