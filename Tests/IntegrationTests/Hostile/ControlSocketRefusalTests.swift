import Foundation
import PatchbayTestSupport
import Testing

/// The control socket is not a plugin's: a plugin (and what it starts, even in a session of
/// its own with its environment cleared) that asks for a restart is refused, the refusal is
/// logged on its instance and counted, and the CLI next to it is served as before.
@Suite struct ControlSocketRefusalTests {
  @Test func aPluginCannotDriveTheControlSocket() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "intruder", source: ControlSocketIntruder.source)
    try harness.linkBuiltPlugins(["example-swift"])
    try harness.writeConfig(
      """
      [instances.good]
      plugin = "example-swift"
      record = "\(harness.path)/good.jsonl"
      ports = [{ name = "seen", type = "integer", kind = "event" }]

      [instances.bad]
      plugin = "intruder"
      socket = "\(harness.socketPath)"
      target = "good"
      """)
    try harness.start()
    try harness.waitUntilRunning("good", "bad")
    let hub = harness.process!
    let goodPID = try #require(try harness.pid(of: "good"))
    // The host process's own attempt: the hub closed without a word.
    _ = try hub.waitForLine(containing: "intruder (host process): ''", within: 60)
    _ = try hub.waitForLine(containing: "[bad] refused a control connection from process", within: 60)
    // Both attempts (the host's and its escaped grandchild's) counted on the instance.
    try eventually("both attempts counted on 'bad'; log:\n\(harness.log)") {
      (try harness.instanceStatus("bad")?["controlRefusals"] as? Int ?? 0) >= 2
    }
    #expect(try harness.pid(of: "good") == goodPID)
    // The CLI, not a descendant of the hub, is served.
    #expect(try harness.cli("restart", "good").status == 0)
    try eventually("'good' restarted by the CLI") {
      let pid = try harness.pid(of: "good")
      return pid != nil && pid != goodPID
    }
    try harness.stop()
  }
}
