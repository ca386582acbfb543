import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

/// `/pairings` through the real plugin: the admin adds a regular controller, which reads and
/// writes (its writes reach the hub) but may not manage pairings; removing it closes its open
/// session, while the admin's goes on; the hub and `patchbay status` follow along.
@Suite(.serialized) struct HomeKitPairingsEndToEndTests {
  @Test func aRegularControllerReadsAndWritesButCannotManagePairingsAndIsClosedWhenRemoved() throws {
    let bridge = try HomeKitBridgeUnderTest(name: "Pairings Bridge")
    try bridge.writeConfig(
      accessories: HubTOML().accessory("Heater", service: "switch"),
      probePorts: [.state("heater_on", "bool")],
      extra: HubTOML().route(from: "homekit.heater.on.set", to: "probe.heater_on"))
    try bridge.start()
    let port = try bridge.port()
    let pid = try bridge.pluginPID()

    let admin = try AiohomekitController(port: port)
    let adminData = try admin.send(["cmd": "pair", "pin": try bridge.identity("setup_code")])
    let adminID = try #require(adminData["iOSPairingId"]?.stringValue)
    let accessories = ListedAccessories(json: try admin.send(["cmd": "accessories"]))
    let heater = try #require(accessories.id("Heater", "25"))
    let heaterKey = try #require(accessories.key("Heater", "25"))

    let guestData = try admin.send(["cmd": "add_controller", "permissions": "User"])
    let guestID = try #require(guestData["iOSPairingId"]?.stringValue)
    try eventually("status shows two controllers: \((try? bridge.hub.cli("status").output) ?? "")") {
      try bridge.hub.cli("status").output.contains("paired with 2 controllers")
    }
    let listed = try admin.send(["cmd": "list_pairings"])
    let permissions = Dictionary(
      (listed.arrayValue ?? []).compactMap { entry in
        entry["pairingId"]?.stringValue.map { ($0, entry["controllerType"]?.stringValue ?? "?") }
      }, uniquingKeysWith: { first, _ in first })
    #expect(permissions == [adminID: "admin", guestID: "regular"], "\(listed)")

    // The regular controller reads, writes (the hub sees the write) and subscribes.
    let guest = try AiohomekitController(port: port)
    try guest.send(["cmd": "load", "name": "guest", "data": guestData.foundation])
    #expect(try guest.send(["cmd": "get", "name": "guest", "ids": [heater]])[heaterKey, "value"] == .bool(false))
    try guest.send(["cmd": "put", "name": "guest", "values": [[heater[0], heater[1], true]]])
    try eventually("the guest's write recorded: \(bridge.recorded())") {
      bridge.recorded().contains(#"{"port":"heater_on","value":true}"#)
    }
    try guest.send(["cmd": "subscribe", "name": "guest", "ids": [heater]])
    // The admin's write is an event at the guest's session.
    try admin.send(["cmd": "put", "values": [[heater[0], heater[1], false]]])
    try guest.waitForEvent { events in events.contains { $0[heaterKey, "value"] == .bool(false) } }

    // Managing pairings is for admins: listing, adding and removing are refused.
    #expect(try guest.failure(["cmd": "list_pairings", "name": "guest"]) == "UnpairedError")
    #expect(try guest.failure(["cmd": "add_controller", "name": "guest"]) == "AuthenticationError")
    #expect(try guest.failure(["cmd": "remove_pairing", "name": "guest", "id": adminID]) != nil)
    #expect(try admin.send(["cmd": "list_pairings"]).arrayValue?.count == 2)

    // Removing the guest closes its open session, and it cannot verify again.
    try admin.send(["cmd": "remove_pairing", "id": guestID])
    #expect(try guest.send(["cmd": "wait_closed", "name": "guest"]) == .bool(true))
    #expect(try guest.failure(["cmd": "get", "name": "guest", "ids": [heater]]) != nil)
    try eventually("status shows one controller: \((try? bridge.hub.cli("status").output) ?? "")") {
      try bridge.hub.cli("status").output.contains("paired with 1 controller")
    }
    // The admin's session was never closed; the same plugin process serves it.
    #expect(try admin.send(["cmd": "disconnects"]) == .integer(0))
    #expect(try admin.send(["cmd": "get", "ids": [heater]])[heaterKey, "value"] == .bool(false))
    #expect(try bridge.pluginPID() == pid)
    let pairings = try #require(bridge.hub.savedState(instance: "homekit", file: "pairings.json"))
    #expect("\(pairings)".contains(adminID) && !"\(pairings)".contains(guestID), "\(pairings)")
    print("aiohomekit transcript (pairings):\n\(admin.transcript)\n\(guest.transcript)")
  }
}
