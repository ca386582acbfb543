import Foundation
import PatchbayTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A plugin that tries to leave its sandbox (issue 30) next to a healthy instance: every try
/// is refused, the refused system calls are counted in `status --sandbox`, and neither the hub
/// nor the healthy instance notice.
@Suite(.serialized) struct SandboxTests {
  func sandboxes(_ harness: HubUnderTest) throws -> [String: [String: Any]] {
    let output = try harness.cli("status", "--sandbox", "--json").output
    let entries = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
    var result: [String: [String: Any]] = [:]
    for entry in entries {
      if let name = entry["instance"] as? String, let sandbox = entry["sandbox"] as? [String: Any] {
        result[name] = sandbox
      }
    }
    return result
  }

  @Test func aPluginCannotLeaveItsSandboxAndTheOthersNeverNotice() throws {
    let allowed = try SilentListener()
    let forbidden = try SilentListener()
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "escaping", source: EscapingPlugin.source)
    try harness.linkBuiltPlugins(["example-swift"])
    let secret = try harness.directory.write("good.secret", "the good instance's password\n")
    try harness.writeConfig(
      HubTOML()
        .instance("bad", plugin: "escaping", ["forbidden": .integer(forbidden.port)])
        .table("instances.bad.sandbox", ["connect": [.integer(allowed.port)]])
        .probe("good", record: harness.path + "/good.jsonl", ports: [.event("seen", "integer")])
        .table("instances.good.sandbox", ["read": [.string(secret)]]))
    try harness.start()
    try harness.waitUntilRunning("bad", "good")
    let hubPID = harness.process!.pid
    let goodPID = try #require(try harness.pid(of: "good"))
    let goodState = harness.stateDirectory + "/instances/good"
    let goodKey = goodState + "/key"
    try "the bridge's long-term key\n".write(toFile: goodKey, atomically: true, encoding: .utf8)
    let badState = harness.stateDirectory + "/instances/bad"
    let outside = harness.path + "/written-by-bad"
    try """
    read \(harness.configPath)
    read \(goodKey)
    read \(secret)
    write \(outside)
    write \(goodState)/planted
    sibling \(goodPID)
    allowed \(allowed.port)
    forbidden \(forbidden.port)

    """.write(toFile: badState + "/targets", atomically: true, encoding: .utf8)

    for number in 1...5 { #expect(try harness.cli("send", "good.seen", String(number)).status == 0) }
    #expect(try harness.cli("send", "bad.poke", "trigger").status == 0)
    try eventually("the escaping plugin finished its tries") {
      harness.lines("state/instances/bad/report").last == "done"
    }
    for number in 6...10 { #expect(try harness.cli("send", "good.seen", String(number)).status == 0) }

    let report = Set(harness.lines("state/instances/bad/report"))
    let expected = [
      "read:\(harness.configPath) refused EACCES", "read:\(goodKey) refused EACCES", "read:\(secret) refused EACCES",
      "write:\(outside) refused EACCES", "write:\(goodState)/planted refused EACCES", "write:own ok",
      "read:/etc/shadow refused EACCES", "read:hub-mem refused EACCES", "read:hub-environ refused EACCES",
      "connect:allowed ok", "connect:forbidden refused EACCES", "ptrace:hub refused EPERM",
      "ptrace:sibling refused EPERM", "process_vm_readv:hub refused EPERM", "unshare:user refused EPERM",
      "kill0:hub refused EPERM", "kill:hub refused EPERM", "kill:sibling refused EPERM",
    ]
    for line in expected { #expect(report.contains(line), "missing '\(line)' in \(report.sorted())") }
    #expect(!FileManager.default.fileExists(atPath: outside))
    #expect(!FileManager.default.fileExists(atPath: goodState + "/planted"))

    // The hub and the healthy instance never noticed: same processes, every event in order.
    #expect(HubUnderTest.isAlive(hubPID))
    #expect(try harness.pid(of: "good") == goodPID)
    let expectedLines = (1...10).map { #"{"port":"seen","value":\#($0)}"# }
    try eventually("the healthy instance recorded 1...10") { harness.lines("good.jsonl") == expectedLines }

    // Counted in status: ptrace twice, process_vm_readv, unshare.
    try eventually("status counts the refused system calls") {
      (try sandboxes(harness)["bad"]?["refusedCalls"] as? Int ?? 0) >= 4
    }
    let bad = try #require(try sandboxes(harness)["bad"])
    #expect((bad["landlockABI"] as? Int ?? 0) >= 6)
    #expect(bad["signalsScoped"] as? Bool == true)
    #expect(bad["networkConfined"] as? Bool == true)
    #expect(bad["seccomp"] as? Bool == true)
    let text = try harness.cli("status", "--sandbox").output
    #expect(text.contains("refused system calls:"), "\(text)")
    #expect(try harness.stop() == 0)
  }

  /// libdispatch's worker-pool monitor opens `/proc/TID/stat` of its workers once a second while
  /// a global queue has waiting work, and traps when that fails: under Landlock a thread's
  /// /proc/TID is not below the granted /proc/self, so a confined host died with SIGILL (the
  /// homebridge-websocket host at stop, from NIO's shutdown). It must run as it does unconfined.
  @Test func libdispatchsWorkerMonitorRunsConfined() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "dispatch-worker", source: DispatchWorkerPlugin.source)
    try harness.writeConfig(
      HubTOML()
        .instance("busy", plugin: "dispatch-worker"))
    try harness.start()
    try harness.waitUntilRunning("busy")
    let pid = try #require(try harness.pid(of: "busy"))
    #expect(try harness.cli("send", "busy.poke", "trigger").status == 0)
    let report = "state/instances/busy/report"
    try eventually("the queued jobs ran", within: 90) {
      harness.lines(report).contains("done \(DispatchWorkerPlugin.jobs)") || !HubUnderTest.isAlive(pid)
    }
    #expect(harness.lines(report) == ["thread-stat ok", "done \(DispatchWorkerPlugin.jobs)"])
    #expect(HubUnderTest.isAlive(pid))
    #expect(try harness.pid(of: "busy") == pid)
    #expect(try harness.stop() == 0)
  }

  @Test func anInstanceWithTheSandboxOffSaysSo() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["example-swift"])
    try harness.writeConfig(
      HubTOML().probe("open", ports: [.event("seen", "integer")], ["sandbox": ["enabled": false]]))
    try harness.start()
    try harness.waitUntilRunning("open")
    #expect(try harness.cli("status", "--sandbox").output.contains("UNCONFINED"))
    #expect(try harness.stop() == 0)
  }

  @Test func checkRefusesASandboxPathThatDoesNotExistOrIsRelative() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.linkBuiltPlugins(["example-swift"])
    func check(_ sandbox: KeyValuePairs<String, HubTOML.Value>) throws -> (status: Int32, output: String) {
      try harness.writeConfig(
        HubTOML().probe(ports: [.event("seen", "integer")]).table("instances.probe.sandbox", sandbox))
      return try harness.check()
    }
    let missing = try check(["read": ["\(harness.path)/no-such-file"]])
    #expect(missing.status == 1)
    #expect(
      missing.output.contains(
        "\(harness.configPath): instances.probe.sandbox.read: '\(harness.path)/no-such-file' does not exist"),
      "\(missing.output)")
    let relative = try check(["write": ["var/relative"]])
    #expect(relative.status == 1)
    #expect(
      relative.output.contains(
        "\(harness.configPath): instances.probe.sandbox.write: \"var/relative\" is not an absolute path"),
      "\(relative.output)")
    #expect(try check(["read": [.string(harness.path)]]).status == 0)
  }
}
