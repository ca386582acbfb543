import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Figure 4: SIGKILL of a plugin process -> the instance runs again. The probe stamps the
/// CLOCK_MONOTONIC time of its start() into a file, so the figure does not depend on how
/// often anyone polls.
/// - `run`: what a user feels, the first restart after a healthy run. Each kill waits until
///   the instance has run longer than `stable_after_s = 1` (a stable run resets the back-off),
///   and `backoff_initial_ms = 0`, so every kill is a first restart with no delay.
/// - `backoffSchedule`: the back-off itself, kills in quick succession with the default policy
///   (500 ms doubling, at most 5 restarts in the window): the delay each crash got against the
///   policy's, and that the 6th crash leaves the instance down.
struct RestartBenchmark {
  let tools: BenchTools
  let kills: Int

  /// How long the probe runs before each kill: more than `stable_after_s` (1 s) counted from
  /// the probe's start(), which the hub sees a little later.
  static let healthyRun: UInt64 = 1_300_000_000

  func run() throws -> [UInt64] {
    let directory = try tools.directory("restart")
    let starts = directory + "/starts"
    let supervision = """
      start_file = "\(starts)"
      backoff_initial_ms = 0
      stable_after_s = 1
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
      guard let (pid, startedAt) = Self.lastStart(starts) else { throw BenchError("the probe wrote no start time") }
      // A healthy run first: the next crash is a first restart again.
      let healthy = startedAt + Self.healthyRun
      let now = monotonicNanos()
      if now < healthy { usleep(UInt32((healthy - now) / 1000)) }
      try hub.waitUntilRunning()
      let (_, restarted) = try killAndWaitForRestart(pid, starts)
      samples.append(restarted)
    }
    return samples
  }

  /// One step of the back-off schedule: restart number `crash` since a stable run.
  struct BackoffStep {
    var crash: Int
    /// SIGKILL -> the probe's start() in the new process.
    var appliedMs: Double
    /// The policy's delay before jitter (docs/configuration.md: ±20 %).
    var policyMs: Double
    /// The delay the hub chose, jitter included (its log line "restarting in X s").
    var chosenMs: Double?
  }

  static let backoffInitialMs = 500.0
  static let backoffMaxMs = 30_000.0
  static let maxRestarts = 5

  /// Kills the probe again as soon as the hub sees it running, `maxRestarts + 1` times. The
  /// last kill is past the intensity limit: the instance must end up failed, not restarted.
  func backoffSchedule() throws -> (steps: [BackoffStep], leftDown: Bool) {
    let directory = try tools.directory("restart-backoff")
    let starts = directory + "/starts"
    let supervision = """
      start_file = "\(starts)"
      backoff_initial_ms = \(Int(Self.backoffInitialMs))
      backoff_max_ms = \(Int(Self.backoffMaxMs))
      max_restarts = \(Self.maxRestarts)
      restart_window_s = 120
      stable_after_s = 60
      """
    let hub = try HubProcess(
      tools: tools, directory: directory,
      config: ProbeConfig.instance("victim", .sink, extra: supervision, folder: directory))
    defer { hub.stop() }
    try hub.waitUntilRunning()
    var steps: [BackoffStep] = []
    for crash in 1...Self.maxRestarts {
      guard let (pid, _) = Self.lastStart(starts) else { throw BenchError("the probe wrote no start time") }
      let (_, restarted) = try killAndWaitForRestart(pid, starts)
      steps.append(
        BackoffStep(
          crash: crash, appliedMs: Double(restarted) / 1e6,
          policyMs: min(Self.backoffMaxMs, Self.backoffInitialMs * Double(1 << (crash - 1)))))
      try hub.waitUntilRunning()
    }
    guard let (pid, _) = Self.lastStart(starts) else { throw BenchError("the probe wrote no start time") }
    kill(pid, SIGKILL)
    try waitFor("the instance to be left down after crash \(Self.maxRestarts + 1)", within: 30, interval: 20_000) {
      hub.status()?.instances.first { $0.name == "victim" }?.phase == .failed
    }
    let leftDown = Self.lastStart(starts).map { $0.0 == pid } ?? false
    let chosen = Self.chosenDelays(hub.log)
    for index in steps.indices where index < chosen.count { steps[index].chosenMs = chosen[index] }
    return (steps, leftDown)
  }

  /// SIGKILL of `pid`; nanoseconds until the next process's start().
  private func killAndWaitForRestart(_ pid: Int32, _ starts: String) throws -> (Int32, UInt64) {
    let killedAt = monotonicNanos()
    kill(pid, SIGKILL)
    var restarted: (Int32, UInt64)?
    try waitFor("the instance to start again after SIGKILL of \(pid)", within: 60, interval: 200) {
      restarted = Self.lastStart(starts).flatMap { $0.0 != pid ? $0 : nil }
      return restarted != nil
    }
    return (restarted!.0, restarted!.1 - killedAt)
  }

  /// The delays of the hub's "restarting in X s" lines, in milliseconds, in order.
  static func chosenDelays(_ log: String) -> [Double] {
    log.split(separator: "\n").compactMap { line in
      guard let range = line.range(of: "restarting in ") else { return nil }
      return Double(line[range.upperBound...].prefix { $0 != " " }).map { $0 * 1000 }
    }
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
