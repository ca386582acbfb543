import Foundation
import HAP
import PatchbayTestSupport
import PatchbayValues
import Testing

/// The accessory server against aiohomekit, the controller library Home Assistant uses: pair,
/// the pairing rules, the accessory database, reads, writes, events, /pairings, reconnects.
@Suite(.serialized) struct AiohomekitPairingTests {
  static let pin = ServerUnderTest.code.description

  @Test func pairListReadWriteAndEvents() async throws {
    let hub = try await ServerUnderTest()
    let controller = try AiohomekitController(port: hub.port)

    // A wrong code fails with authentication and counts a failed attempt.
    #expect(try controller.failure(["cmd": "pair", "pin": "111-22-333"]) == "AuthenticationError")
    #expect(hub.accessories.lastPairingState?.failedSetupAttempts == 1)

    let started = Date()
    let data = try #require(try controller.send(["cmd": "pair", "pin": Self.pin]) as? [String: Any])
    let pairSeconds = Date().timeIntervalSince(started)
    print("pair-setup M1–M6 as aiohomekit saw it: \(String(format: "%.3f", pairSeconds)) s")
    #expect(data["AccessoryPairingID"] as? String == hub.identity.deviceID)
    let controllerID = try #require(data["iOSPairingId"] as? String)
    let state = try #require(hub.accessories.lastPairingState)
    #expect(state.pairings.map(\.identifier) == [controllerID])
    #expect(state.pairings.first?.isAdmin == true)
    #expect(state.pairings.first?.publicKey == hexBytes(data["iOSDeviceLTPK"] as? String ?? ""))

    // Pairing again while paired: unavailable.
    #expect(try controller.failure(["cmd": "pair", "pin": Self.pin, "name": "again"]) == "UnavailableError")

    let accessories = try #require(try controller.send(["cmd": "accessories"]) as? [[String: Any]])
    #expect(accessories.compactMap { $0["aid"] as? Int } == [1, 2, 3, 4])

    let read = try #require(try controller.send(["cmd": "get", "ids": [[2, 9], [4, 10], [3, 9]]]) as? [String: Any])
    #expect((read["2.9"] as? [String: Any])?["value"] as? Bool == false)
    #expect((read["4.10"] as? [String: Any])?["value"] as? Int == 50)
    #expect((read["3.9"] as? [String: Any])?["value"] is NSNull)

    try controller.send(["cmd": "put", "values": [[2, 9, true], [4, 10, 75]]])
    let writes = hub.accessories.writes
    #expect(writes.map(\.0.id) == [TestAccessories.switchOn, TestAccessories.brightness])
    #expect(writes.allSatisfy { $0.controller == controllerID })
    #expect(writes.first?.0.value == .bool(true))
    #expect(hub.accessories.value(TestAccessories.switchOn) == .bool(true))

    // An out-of-range write gets -70410 from the delegate, passed through as 207.
    let refused = try #require(try controller.send(["cmd": "put", "values": [[4, 10, 500]]]) as? [String: Any])
    #expect((refused["4.10"] as? [String: Any])?["status"] as? Int == HAPStatus.invalidValue.rawValue)

    // Subscribe, then hub-side changes arrive as events: a coalesced one and a button press.
    try controller.send(["cmd": "subscribe", "ids": [[4, 10], [3, 9]]])
    hub.server.notify([(TestAccessories.brightness, .integer(20))], immediately: false, except: nil)
    hub.server.notify([(TestAccessories.brightness, .integer(30))], immediately: false, except: nil)
    hub.server.notify([(TestAccessories.buttonEvent, .integer(1))], immediately: true, except: nil)
    try eventually("the events; transcript:\n\(controller.transcript)", within: 60) {
      let values = controller.events.compactMap { $0["values"] as? [String: Any] }
      return values.contains { ($0["3.9"] as? [String: Any])?["value"] as? Int == 1 }
        && values.contains { ($0["4.10"] as? [String: Any])?["value"] as? Int == 30 }
    }
    // Coalesced: the 20 was replaced by the 30 before it went out; the button press came first
    // with the pending brightness flushed ahead of it, so at most one brightness event.
    let brightnessEvents = controller.events.compactMap { ($0["values"] as? [String: Any])?["4.10"] }
    #expect(brightnessEvents.count == 1)
    // A change caused by this controller's own write is not echoed to it.
    hub.server.notify([(TestAccessories.brightness, .integer(40))], immediately: true, except: controllerID)
    hub.server.notify([(TestAccessories.buttonEvent, .integer(2))], immediately: true, except: nil)
    try eventually("the second button event", within: 60) {
      controller.events.contains { (($0["values"] as? [String: Any])?["3.9"] as? [String: Any])?["value"] as? Int == 2 }
    }
    #expect(!controller.events.contains { (($0["values"] as? [String: Any])?["4.10"] as? [String: Any])?["value"] as? Int == 40 })

    print("aiohomekit transcript:\n\(controller.transcript)")
    await hub.stop()
  }

  @Test func maxTriesAfterAHundredFailures() async throws {
    let hub = try await ServerUnderTest(pairingState: HAPPairingState(failedSetupAttempts: 100))
    let controller = try AiohomekitController(port: hub.port)
    #expect(try controller.failure(["cmd": "pair", "pin": Self.pin]) == "MaxTriesError")
    #expect(hub.accessories.lastPairingState == nil)
    await hub.stop()
  }

  @Test func aRegularControllerReadsAndWritesButDoesNotManagePairings() async throws {
    let hub = try await ServerUnderTest()
    let admin = try AiohomekitController(port: hub.port)
    let adminData = try #require(try admin.send(["cmd": "pair", "pin": Self.pin]) as? [String: Any])
    let guestData = try #require(try admin.send(["cmd": "add_controller", "permissions": "User"]) as? [String: Any])
    let guestID = try #require(guestData["iOSPairingId"] as? String)
    #expect(hub.accessories.lastPairingState?.pairings.map(\.isAdmin) == [true, false])

    let guest = try AiohomekitController(port: hub.port)
    try guest.send(["cmd": "load", "name": "guest", "data": guestData])
    let read = try #require(try guest.send(["cmd": "get", "name": "guest", "ids": [[4, 10]]]) as? [String: Any])
    #expect((read["4.10"] as? [String: Any])?["value"] as? Int == 50)
    try guest.send(["cmd": "put", "name": "guest", "values": [[2, 9, true]]])
    #expect(hub.accessories.writes.last?.controller == guestID)
    // Listing and adding pairings is for admins: TLV error 2 (authentication).
    #expect(try guest.failure(["cmd": "list_pairings", "name": "guest"]) == "UnpairedError")
    #expect(try guest.failure(["cmd": "add_controller", "name": "guest"]) == "AuthenticationError")

    let listed = try #require(try admin.send(["cmd": "list_pairings"]) as? [[String: Any]])
    #expect(Set(listed.compactMap { $0["pairingId"] as? String }) == [adminData["iOSPairingId"] as! String, guestID])

    // Removing the guest closes its open session.
    try admin.send(["cmd": "remove_pairing", "id": guestID])
    #expect(try guest.send(["cmd": "wait_closed", "name": "guest"]) as? Bool == true)
    #expect(hub.accessories.lastPairingState?.pairings.count == 1)
    #expect(try guest.failure(["cmd": "get", "name": "guest", "ids": [[4, 10]]]) != nil)
    // The admin still works; removing the last admin unpairs the accessory.
    #expect(try admin.failure(["cmd": "get", "ids": [[4, 10]]]) == nil)
    try admin.send(["cmd": "remove_pairing", "id": adminData["iOSPairingId"] as! String])
    #expect(hub.accessories.lastPairingState?.isPaired == false)
    await hub.stop()
  }

  @Test func aFreshProcessReconnectsWithTheStoredPairing() async throws {
    let hub = try await ServerUnderTest()
    let first = try AiohomekitController(port: hub.port)
    let data = try #require(try first.send(["cmd": "pair", "pin": Self.pin]) as? [String: Any])
    try first.process.closeInput()
    try first.process.waitForExit(within: 60)

    let second = try AiohomekitController(port: hub.port)
    try second.send(["cmd": "load", "data": data])
    let read = try #require(try second.send(["cmd": "get", "ids": [[2, 9]]]) as? [String: Any])
    #expect((read["2.9"] as? [String: Any])?["value"] as? Bool == false)
    await hub.stop()
  }
}

func hexBytes(_ text: String) -> [UInt8] {
  var bytes: [UInt8] = []
  var index = text.startIndex
  while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) {
    bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
    index = next
  }
  return bytes
}
