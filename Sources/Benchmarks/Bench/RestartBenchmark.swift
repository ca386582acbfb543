import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Figure 4: SIGKILL of a plugin process -> the instance runs again. The probe stamps the
/// CLOCK_MONOTONIC time of its start() into a file, so the figure does not depend on how
/// often anyone polls. `backoff_initial_ms = 0` takes the back-off out (each kill is a first
/// restart); the intensity limit is set out of reach.
struct RestartBenchmark {
  let tools: BenchTools
  let kills: Int

  func run() throws -> [UInt64] {
    let directory = try tools.directory("restart")
    let starts = directory + "/starts"
    let supervision = """
      start_file = "\(starts)"
      backoff_initial_ms = 0
      max_restarts = 1000000
      restart_window_s = 1
      """
    let hub = try HubProcess(
      tools: tools, directory: directory,
      config: ProbeConfig.instance("victim", .sink, extra: supervision, folder: directory))
    defer { hub.stop() }
    try hub.waitUntilRunning()
    var samples: [UInt64] = []
    for _ in 0..<kills {
      guard let (pid, _) = Self.lastStart(starts) else { throw BenchError("the probe wrote no start time") }
      let killedAt = monotonicNanos()
      kill(pid, SIGKILL)
      var restarted: (Int32, UInt64)?
      try waitFor("the instance to start again after SIGKILL of \(pid)", within: 60, interval: 200) {
        restarted = Self.lastStart(starts).flatMap { $0.0 != pid ? $0 : nil }
        return restarted != nil
      }
      samples.append(restarted!.1 - killedAt)
      // The next kill only once the hub, too, has seen it running.
      try hub.waitUntilRunning()
      usleep(20_000)
    }
    return samples
  }

  /// The baseline: spawning `patchbay-plugin-host` itself (exec, dynamic linking, the Swift
  /// runtime, its first read, on a /dev/null "socket") until it exits, as the hub spawns it.
  func spawnBaseline() throws -> [UInt64] {
    try (0..<kills).map { _ in
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      posix_spawn_file_actions_addopen(&actions, 3, "/dev/null", O_RDONLY, 0)
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
      let argv = [strdup(tools.pluginHost), nil]
      defer { free(argv[0]) }
      let started = monotonicNanos()
      var pid: pid_t = 0
      let status = posix_spawn(&pid, tools.pluginHost, &actions, nil, argv, environ)
      guard status == 0 else { throw BenchError("posix_spawn \(tools.pluginHost): \(status)") }
      var exit: Int32 = 0
      while waitpid(pid, &exit, 0) == -1 && errno == EINTR {}
      return monotonicNanos() - started
    }
  }

  /// The last "PID START_NS" line the probe appended.
  private static func lastStart(_ path: String) -> (Int32, UInt64)? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8),
      let line = text.split(separator: "\n").last
    else { return nil }
    let fields = line.split(separator: " ")
    guard fields.count == 2, let pid = Int32(fields[0]), let at = UInt64(fields[1]) else { return nil }
    return (pid, at)
  }
}
