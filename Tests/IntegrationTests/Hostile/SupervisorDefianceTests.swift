import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Plugins that defy their supervisor (block in a callback under a flood, refuse their config,
/// crash in a loop, raise signals, imitate the host's exit statuses) against a real hub: every
/// stop and kill deadline fires, starts do not wait on each other, and the log stays readable.
@Suite(.serialized) struct SupervisorDefianceTests {
  func harness(_ config: HubTOML) throws -> HubUnderTest {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "stubborn", source: StubbornPlugin.source, defines: ["-lpthread"])
    try harness.writeConfig(config)
    return harness
  }

  static func seconds(since start: Date) -> String { String(format: "%.2f s", Date().timeIntervalSince(start)) }

  @Test func aPluginBlockedInReceiveUnderAFloodStillRestartsAndTheHubStillStops() throws {
    let harness = try harness(
      HubTOML()
        .instance("flooder", plugin: "stubborn", ["mode": "flood"])
        .instance(
          "stuck", plugin: "stubborn", ["mode": "block_in_receive", "stop_timeout_ms": 1000, "hang_timeout_ms": 600000]
        )
        .route(from: "flooder.tick", to: "stuck.poke"))
    try harness.start()
    let hub = harness.process!
    try harness.waitUntilRunning("flooder", "stuck")
    // Its socket is full (it stopped reading inside receive()) and its queue fills up behind.
    try eventually("stuck's queue fills up", within: 60) {
      (try harness.instanceStatus("stuck")?["queueDepth"] as? Int ?? 0) >= 500
    }
    let firstPID = try harness.pid(of: "stuck")
    let restartBegan = Date()
    #expect(try harness.cli("restart", "stuck").status == 0)
    try harness.waitForNewProcess(
      of: "stuck", replacing: firstPID, what: "stuck runs again in a new process; output:\n\(hub.output)", within: 60)
    let restartTook = Self.seconds(since: restartBegan)
    // The new process blocks again under the flood: the hub's SIGTERM must still end it all.
    try eventually("stuck's queue fills up again", within: 60) {
      (try harness.instanceStatus("stuck")?["queueDepth"] as? Int ?? 0) >= 500
    }
    let stopBegan = Date()
    let status = try harness.stop(within: 60)
    let stopTook = Self.seconds(since: stopBegan)
    print("stuck stop: restart done in \(restartTook), hub SIGTERM done in \(stopTook) (stop_timeout_ms = 1000)")
    #expect(status == 0, "\(hub.output)")
    // Either way the stop deadline fired: its socket was full when the stop came (SIGTERM at
    // once), or the stop message still fit and it never read it (SIGTERM after stop_timeout).
    // Which one depends on how far the flood got, not on the hub.
    #expect(
      hub.lines.contains {
        $0.contains("[stuck] is not reading its inputs") || $0.contains("[stuck] did not stop within 1.0 s")
      }, "\(hub.output)")
  }

  @Test func aCreateThatFailsHoldsUpNoOtherInstance() throws {
    let harness = try harness(
      HubTOML()
        .instance("refuses", plugin: "stubborn", ["mode": "refuse_config"])
        .instance(
          "flaky", plugin: "stubborn", ["mode": "unavailable", "max_restarts": 50, "backoff_initial_ms": 10000]
        )
        .instance("good", plugin: "stubborn")
        .route(from: "good.tick", to: "flaky.poke"))
    try harness.start()
    let hub = harness.process!
    try harness.waitUntilRunning("good")
    // The hub did not wait for flaky's restarts (the first comes after 10 s, the next 20 s later).
    let flaky = try harness.instanceStatus("flaky")
    #expect((flaky?["restarts"] as? Int ?? 99) <= 1, "\(String(describing: flaky))")
    #expect(flaky?["phase"] as? String != "running")
    // A config the plugin refused is not retried: failed at once, saying why.
    let refuses = try harness.instanceStatus("refuses")
    #expect(refuses?["phase"] as? String == "failed", "\(hub.output)")
    #expect(refuses?["restarts"] as? Int == 0)
    let failure = refuses?["failure"] as? String ?? ""
    #expect(failure.contains("'mode' names no device here"), "\(failure)")
    try harness.stop()
  }

  /// A create() that never returns holds up nobody: the others start and route while it is
  /// still inside it (before: every instance waited for its hang timeout).
  @Test func aCreateThatHangsHoldsUpNoOtherInstance() throws {
    let harness = try harness(
      HubTOML()
        .instance("hangs", plugin: "stubborn", ["mode": "hang_create", "hang_timeout_ms": 600000])
        .instance("good", plugin: "stubborn")
        .instance("other", plugin: "stubborn")
        .route(from: "good.tick", to: "other.poke"))
    // Well before the minute the hub used to wait for a create() (a generous bound, not a speed).
    try harness.start(within: 40)
    try harness.waitUntilRunning("good", "other")
    try harness.send("good.tick", "trigger")
    try eventually("other got the routed value", within: 60) {
      (try harness.instanceStatus("other")?["messagesIn"] as? Int ?? 0) >= 1
    }
    // ... while `hangs` is still inside its first create() (its hang timeout is 10 minutes).
    let hangs = try harness.instanceStatus("hangs")
    #expect(hangs?["phase"] as? String == "starting", "\(String(describing: hangs))")
    #expect(hangs?["restarts"] as? Int == 0)
    try harness.stop()
  }

  /// An instance whose create() outlasts the hub's wait gets its routes before it starts.
  @Test func aSlowCreateGetsItsRoutesBeforeItStarts() throws {
    let harness = try harness(
      HubTOML()
        .instance("slow", plugin: "stubborn", ["mode": "slow_create"])
        .instance("good", plugin: "stubborn")
        .route(from: "good.tick", to: "slow.poke"))
    try harness.start()
    let hub = harness.process!
    try harness.waitUntilRunning("good")
    #expect(try harness.instanceStatus("slow")?["phase"] as? String == "starting")
    try harness.waitUntilRunning("slow")
    // Read through a pipe: the line may still be on its way when the status says running.
    try hub.waitForLine(containing: "'slow' runs now: routes installed again", within: 60)
    try harness.send("good.tick", "trigger")
    try eventually("slow got the value its route carries; output:\n\(hub.output)", within: 30) {
      (try harness.instanceStatus("slow")?["messagesIn"] as? Int ?? 0) >= 1
    }
    try harness.stop()
  }

  @Test func anInstanceThatStartsOnlyOnItsSecondAttemptGetsItsRoutes() throws {
    let harness = try harness(
      HubTOML()
        .instance("late", plugin: "stubborn", ["mode": "unavailable_once", "backoff_initial_ms": 100])
        .instance("good", plugin: "stubborn")
        .route(from: "good.tick", to: "late.poke"))
    try harness.start()
    let hub = harness.process!
    try harness.waitUntilRunning("late", "good")
    try hub.waitForLine(containing: "'late' runs now: routes installed again", within: 30)
    try harness.send("good.tick", "trigger")
    try eventually("late got the value its route carries; output:\n\(hub.output)", within: 30) {
      (try harness.instanceStatus("late")?["messagesIn"] as? Int ?? 0) >= 1
    }
    try harness.stop()
  }

  @Test func sigtermWhileAnInstanceHangsInCreateActsAtOnce() throws {
    let harness = try harness(
      HubTOML()
        .instance(
          "hangs", plugin: "stubborn", ["mode": "hang_create", "stop_timeout_ms": 1000, "hang_timeout_ms": 600000]
        )
        .instance("good", plugin: "stubborn"))
    let hub = try ChildProcess(BuildProducts.executable("patchbay"), ["run", "--config", harness.configPath])
    defer { hub.signal(SIGKILL) }
    // Both plugin hosts run (one of them inside a create() that never returns).
    try eventually("two plugin processes; output:\n\(hub.output)", within: 60) {
      HubUnderTest.children(of: hub.pid).filter(HubUnderTest.isAlive).count == 2
    }
    try hub.waitForLine(containing: "[good] created", within: 60)
    let began = Date()
    // The start waits for `hangs` up to a minute; SIGTERM must not.
    let status = try hub.terminate(within: 30)
    print("SIGTERM while starting: the hub ended in \(Self.seconds(since: began))")
    #expect(status == 0, "\(hub.output)")
  }

  @Test func aRaisedSegfaultEndsTheHostAndAnExitStatusSaysOnlyThat() throws {
    let harness = try harness(
      HubTOML()
        .instance("segv", plugin: "stubborn", ["mode": "segv_in_receive"])
        .instance("exits", plugin: "stubborn", ["mode": "exit3_in_receive"]))
    try harness.start()
    let hub = harness.process!
    try harness.waitUntilRunning("segv", "exits")
    try harness.send("segv.poke", "trigger")
    try hub.waitForLine(containing: "[segv] plugin process", within: 30)
    #expect(hub.lines.contains { $0.contains("[segv] plugin process") && $0.contains("killed by signal SIGSEGV") })
    try hub.waitForLine(containing: "[segv] restarting in", within: 30)
    try harness.send("exits.poke", "trigger")
    try hub.waitForLine(containing: "[exits] plugin process", within: 30)
    #expect(hub.lines.contains { $0.contains("[exits]") && $0.contains("the plugin exited with status 3") })
    // exit(3) is the plugin's, not the host's "library refused".
    #expect(!hub.lines.contains { $0.contains("[exits]") && $0.contains("refused") }, "\(hub.output)")
    try harness.stop()
  }

  @Test func aCrashLoopWithoutBackOffIsSlowedAndSummarised() throws {
    let harness = try harness(
      HubTOML()
        .instance(
          "loop", plugin: "stubborn",
          ["mode": "abort_at_start", "backoff_initial_ms": 0, "backoff_max_ms": 0, "max_restarts": 100000]
        )
        .instance("good", plugin: "stubborn"))
    try harness.start()
    let hub = harness.process!
    try hub.waitForLine(containing: "[loop] crashed", within: 60)
    try eventually("ten restarts", within: 120) { (try harness.instanceStatus("loop")?["restarts"] as? Int ?? 0) >= 10 }
    // The config's 0 ms is said to be raised, once.
    #expect(hub.lines.filter { $0.contains("[loop] backoff_initial_ms = 0") }.count == 1, "\(hub.output)")
    // A line per crash at first, then they are summarised.
    let crashLines = hub.lines.filter { $0.contains("[loop] plugin process") }
    #expect(crashLines.count <= 6, "\(crashLines.joined(separator: "\n"))")
    #expect(hub.lines.contains { $0.contains("[loop]") && $0.contains("further crashes and restarts are summarised") })
    // No crash handler's backtraces in the log.
    #expect(!hub.lines.contains { $0.contains("Program crashed") || $0.contains("Backtrace") }, "\(hub.output)")
    try harness.stop()
  }

  @Test func aStateFileThatCannotBeWrittenIsOneLineNotOnePerSave() throws {
    let harness = try harness(
      HubTOML()
        .instance("source", plugin: "stubborn")
        .instance("sink", plugin: "stubborn")
        .route(from: "source.tick", to: "sink.poke", ["cycle": [true, false]]))
    // The state file's path is taken by a directory: every save fails.
    try FileManager.default.createDirectory(
      atPath: harness.stateDirectory + "/hub-state.json", withIntermediateDirectories: true)
    try harness.start()
    let hub = harness.process!
    // Each value moves the cycle, whose position is saved at once: 20 failed saves.
    for _ in 0..<20 { try harness.send("source.tick", "trigger") }
    try hub.waitForLine(containing: "cannot write state file", within: 30)
    try eventually("the sink got all 20", within: 30) {
      (try harness.instanceStatus("sink")?["messagesIn"] as? Int ?? 0) >= 20
    }
    let lines = hub.lines.filter { $0.contains("cannot write state file") }
    #expect(lines.count == 1, "\(lines.joined(separator: "\n"))")
    try harness.stop()
  }
}
