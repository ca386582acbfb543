import Foundation
import PatchbayTestSupport
import Testing

/// ABI 1.2 through a real hub and a C plugin built against the header alone: an output that
/// mirrors an input, the peer state and a note in `patchbay status`, and a cancelled timer's
/// user data released by the host.
@Suite(.serialized) struct PortAttributeTests {
  func startHub() throws -> HubUnderTest {
    let hub = try HubUnderTest("patchbay-attributes")
    try hub.compileCPlugin(name: "device", source: DeviceStatePlugin.source)
    try hub.writeConfig(
      HubTOML()
        .instance("lamp", plugin: "device", ["record": "\(hub.directory.path)/levels.txt", "backoff_initial_ms": 100]))
    try hub.start()
    try hub.waitUntilRunning("lamp")
    return hub
  }

  /// The hub's retained value of a state output, as `values` on the control socket answers.
  func retained(_ hub: HubUnderTest, _ address: String) throws -> String? {
    let values = try hub.request(["command": "values"])["values"] as? [[String: Any]]
    return values?.first { $0["address"] as? String == address }?["value"] as? String
  }

  /// Issue 28.1: the hub set level 1, then the device reported 5 on its own side. A restart
  /// gives the new process 5, not the 1 that would undo the device's change.
  @Test func aRestartedInstanceGetsTheStateItsDeviceReported() throws {
    let hub = try startHub()
    #expect(try hub.cli("send", "lamp.level", "1").status == 0)
    try eventually("level 1 delivered") { hub.lines("levels.txt") == ["1"] }
    #expect(try hub.cli("send", "lamp.report", "5").status == 0)
    try eventually("the report published") {
      try retained(hub, "lamp.level.reported") == "5"
    }
    #expect(try hub.cli("restart", "lamp").status == 0)
    try eventually("the restarted process got the reported level: \(hub.lines("levels.txt"))\n\(hub.log)") {
      hub.lines("levels.txt").count == 2
    }
    #expect(hub.lines("levels.txt") == ["1", "5"])
    // Mirroring is not routing: the reported value never went to the input while it ran (the
    // record has it only from the restart). An output cannot mirror an output.
    #expect(hub.log.contains("add_port 'bad': mirrors"), "\(hub.log)")
    _ = try hub.stop()
  }

  /// The plugin says what status shows; the core knows no port names.
  @Test func statusShowsThePeerAndNoteThePluginDeclared() throws {
    let hub = try startHub()
    try eventually("PEER and the note in status") {
      let status = try hub.cli("status").output
      return status.contains("warming up") && status.contains("lamp: note hello from the device")
    }
    // The host released the cancelled timer's user data, on the plugin context.
    try eventually("the release published") {
      try retained(hub, "lamp.timer")?.contains("released") == true
    }
    _ = try hub.stop()
  }
}
