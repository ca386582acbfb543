import PatchbayTestSupport

/// Starts a helper program (mosquitto, mosquitto_sub, ...) with an empty signal mask and line-
/// buffered output. The test process blocks SIGTERM and friends in the thread that spawns, a
/// spawned child inherits that mask, and mosquitto then never sees the SIGTERM that should stop
/// it (it unblocks only what was unblocked at its start); stdbuf makes mosquitto_sub's lines
/// reach the pipe as they are printed.
func helperProcess(_ executable: String, _ arguments: [String]) throws -> ChildProcess {
  let launcher = """
    import os, signal, sys
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    os.execv("/usr/bin/stdbuf", ["stdbuf", "-oL", "-eL"] + sys.argv[1:])
    """
  return try ChildProcess("/usr/bin/python3", ["-c", launcher, executable] + arguments)
}
