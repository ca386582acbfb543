import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay restart` and a reload once started a process that was SIGKILLed seconds later
/// (its parent-death signal was tied to the short-lived thread that spawned it).
@Suite(.serialized) struct RestartKeepsNewProcessTests {
  func startCounterHub() throws -> HubUnderTest {
    let harness = try HubUnderTest.withCounter("patchbay-it", ["stop_timeout_ms": 2000])
    try harness.start()
    return harness
  }

  func pidAndRestarts(_ harness: HubUnderTest) throws -> (pid: Int32?, restarts: Int?) {
    let status = try harness.instanceStatus("counter")
    return ((status?["pid"] as? NSNumber)?.int32Value, status?["restarts"] as? Int)
  }

  /// The new process outlives the old one's stop and kill deadlines (2 s + 2 s) plus 5 s.
  func expectStaysUp(_ harness: HubUnderTest, pid: Int32) throws {
    let deadline = Date().addingTimeInterval(9)
    // Waiting for a condition that must NOT happen: watch for the whole span.
    while Date() < deadline {
      #expect(HubUnderTest.isAlive(pid), "the new process \(pid) died")
      if !HubUnderTest.isAlive(pid) { break }
      _ = try? eventually("9 s of watching", within: 0.5) { false }
    }
    let after = try pidAndRestarts(harness)
    #expect(after.pid == pid)
    #expect(after.restarts == 0, "restart counter moved: \(after)")
    #expect(!harness.process!.lines.contains { $0.contains("SIGKILL") }, "\(harness.process!.output)")
  }

  @Test func theProcessStartedByRestartStaysUp() throws {
    let harness = try startCounterHub()
    var old: Int32?
    try eventually("counter runs") {
      old = try pidAndRestarts(harness).pid
      return old != nil
    }
    #expect(try harness.cli("restart", "counter").status == 0)
    var new: Int32?
    try eventually("counter has a new pid") {
      new = try pidAndRestarts(harness).pid
      return new != nil && new != old
    }
    try expectStaysUp(harness, pid: new!)
    try harness.stop()
  }

  @Test func theProcessStartedByReloadStaysUp() throws {
    let harness = try startCounterHub()
    var old: Int32?
    try eventually("counter runs") {
      old = try pidAndRestarts(harness).pid
      return old != nil
    }
    try harness.writeConfig(
      HubTOML()
        .instance("counter", plugin: "example-c", ["stop_timeout_ms": 2000, "step": 2]))
    let reload = try harness.cli("reload")
    #expect(reload.status == 0, "\(reload.output)")
    var new: Int32?
    try eventually("counter has a new pid") {
      new = try pidAndRestarts(harness).pid
      return new != nil && new != old
    }
    try expectStaysUp(harness, pid: new!)
    try harness.stop()
  }
}
