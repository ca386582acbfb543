import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

/// patchbay against patchbay: one hub's homekit-controller paired with another hub's homekit
/// bridge, both directions of the protocol written here, each also tested against real peers
/// (HAP-python, aiohomekit).
@Suite(.serialized) struct HubToHubHomeKitTests {
  @Test func oneHubsControllerDrivesAnothersBridge() async throws {
    let reservation = try PortReservation()
    let bridge = try HubUnderTest("patchbay-hk-bridge", plugins: ["homekit", "example-swift"])
    let bridgeProbe = bridge.path + "/probe.jsonl"
    try bridge.writeConfig(
      HubTOML()
        .instance(
          "homekit", plugin: "homekit",
          ["name": "Other Hub", "port": .integer(reservation.port), "setup_code": "031-45-154"]
        )
        .arrayTable("instances.homekit.accessories", ["name": "Desk lamp", "service": "lightbulb"])
        .arrayTable("instances.homekit.accessories", ["name": "Front door", "service": "contact_sensor"])
        .probe(record: bridgeProbe, ports: [.event("lamp_set", "light")])
        .route(from: "homekit.desk_lamp.light.set", to: "probe.lamp_set"))
    try bridge.start()
    try bridge.waitUntilRunning("homekit", "probe")

    let controller = try HubUnderTest("patchbay-hk-controller", plugins: ["homekit-controller", "example-swift"])
    let probe = controller.path + "/probe.jsonl"
    try controller.writeConfig(
      HubTOML()
        .instance("house", plugin: "homekit-controller")
        .probe(record: probe, ports: [.state("door_open", "bool")])
        .route(from: "house.front_door.open", to: "probe.door_open"))
    // The bridge's port is the reserved one; no mDNS in this test.
    let paired = try controller.cli(
      "homekit-controller", "pair", "house", "--device", "bridge", "--code", "031-45-154", "--address",
      "127.0.0.1:\(reservation.port)")
    print(paired.output)
    try #require(paired.status == 0, "\(paired.output)")
    #expect(paired.output.contains("verified: 3 accessories there"), "the bridge and its two: \(paired.output)")
    try controller.start()
    try controller.waitUntilRunning("house", "probe")
    try eventually("the controller connected; log:\n\(controller.log)") {
      controller.log.contains("connected to Other Hub")
    }
    let ports = try controller.cli("plugins", "--ports").output
    #expect(ports.contains("input house.desk_lamp.light") && ports.contains("output house.front_door.open"), "\(ports)")

    // Controller hub → bridge hub: the light command is a HomeKit write the bridge turns into a value.
    try controller.send("house.desk_lamp.light", #"{"on":true,"brightness":30}"#)
    try eventually("the write at the bridge's hub: \(bridge.lines("probe.jsonl"))\n\(bridge.log)") {
      bridge.lines("probe.jsonl").contains { $0.contains("lamp_set") && $0.contains("\"brightness\":30") }
    }
    // Bridge hub → controller hub: a value on the bridge's port is a HomeKit event.
    try bridge.send("homekit.front_door.contact_sensor_state", "1")
    try eventually("the door's event at the controller's hub: \(controller.lines("probe.jsonl"))") {
      controller.lines("probe.jsonl").contains { $0.contains("door_open") && $0.contains("true") }
    }
    try controller.stop()
    try bridge.stop()
  }
}
