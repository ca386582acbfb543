import Foundation
import PatchbayTestSupport
import Testing

/// The control socket is not a plugin's (issue 41, attacks 2 and 3). By default a plugin cannot
/// even create a Unix socket (seccomp: socket(AF_UNIX) fails with EACCES), so it reaches no
/// named socket at all: not the control socket, not the system bus. An instance granted Unix
/// sockets (`sandbox.unix_sockets = true`, as the D-Bus plugins are) reaches the socket, and
/// then the hub's check of the caller's lineage refuses it, even through processes whose names
/// are not UTF-8 (the host's own /proc/self/comm, a child's PR_SET_NAME). The refusals are
/// logged on the instance and counted, and the CLI next to it is served as before.
@Suite(.serialized) struct ControlSocketRefusalTests {
  func startHub(unixSockets: Bool) throws -> HubUnderTest {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "intruder", source: ControlSocketIntruder.source)
    try harness.linkBuiltPlugins(["example-swift"])
    try harness.writeConfig(
      HubTOML()
        .probe("good", record: harness.path + "/good.jsonl", ports: [.event("seen", "integer")])
        .instance("bad", plugin: "intruder", ["socket": .string(harness.socketPath), "target": "good"])
        .keys(unixSockets ? ["sandbox": ["unix_sockets": true]] : [:]))
    try harness.start()
    try harness.waitUntilRunning("good", "bad")
    return harness
  }

  @Test func aPluginCannotOpenAUnixSocketByDefault() throws {
    let harness = try startHub(unixSockets: false)
    let hub = harness.process!
    let goodPID = try #require(try harness.pid(of: "good"))
    _ = try hub.waitForLine(containing: "intruder (host process): 'socket refused: Permission denied'", within: 60)
    _ = try hub.waitForLine(containing: "intruder (grandchild): not obeyed", within: 60)
    #expect(try harness.pid(of: "good") == goodPID)
    // status --sandbox says so.
    let sandbox = try harness.cli("status", "--sandbox")
    #expect(sandbox.output.contains("unix:    refused (no socket(AF_UNIX)"), "\(sandbox.output)")
    try harness.stop()
  }

  @Test func aPluginGrantedUnixSocketsStillCannotDriveTheControlSocket() throws {
    let harness = try startHub(unixSockets: true)
    let hub = harness.process!
    let goodPID = try #require(try harness.pid(of: "good"))
    // The host process's own attempt: the hub closed without a word.
    _ = try hub.waitForLine(containing: "intruder (host process): ''", within: 60)
    _ = try hub.waitForLine(containing: "intruder (grandchild): not obeyed", within: 60)
    _ = try hub.waitForLine(containing: "[bad] refused a control connection from process", within: 60)
    // Both attempts (the host's and its escaped grandchild's) counted on the instance.
    try eventually("both attempts counted on 'bad'; log:\n\(harness.log)") {
      (try harness.instanceStatus("bad")?["controlRefusals"] as? Int ?? 0) >= 2
    }
    #expect(try harness.pid(of: "good") == goodPID)
    #expect(!harness.log.contains("the hub obeyed"), "\(harness.log)")
    let sandbox = try harness.cli("status", "--sandbox")
    #expect(sandbox.output.contains("unix:    ALLOWED"), "\(sandbox.output)")
    // The CLI, not a descendant of the hub, is served.
    #expect(try harness.cli("restart", "good").status == 0)
    try harness.waitForNewProcess(of: "good", replacing: goodPID, what: "'good' restarted by the CLI")
    try harness.stop()
  }
}
