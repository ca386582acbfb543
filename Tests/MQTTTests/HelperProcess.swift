import PatchbayTestSupport

/// Starts a helper program (mosquitto, mosquitto_sub, ...) with line-buffered output: stdbuf
/// makes mosquitto_sub's lines reach the pipe as they are printed. It also empties the signal
/// mask, which `ChildProcess` (swift-subprocess) already does; Foundation's `Process` let a child
/// inherit the spawning thread's mask (SIGTERM blocked), and mosquitto then never saw the
/// SIGTERM that should stop it.
func helperProcess(_ executable: String, _ arguments: [String]) throws -> ChildProcess {
  let launcher = """
    import os, signal, sys
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    os.execv("/usr/bin/stdbuf", ["stdbuf", "-oL", "-eL"] + sys.argv[1:])
    """
  return try ChildProcess("/usr/bin/python3", ["-c", launcher, executable] + arguments)
}
