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
    let controller = try await AiohomekitController.start(port: hub.port)

    // A wrong code fails with authentication and counts a failed attempt.
    #expect(try await controller.failure(["cmd": "pair", "pin": "111-22-333"]) == "AuthenticationError")
    #expect(hub.accessories.lastPairingState?.failedSetupAttempts == 1)

    let started = ContinuousClock.now
    let data = try await controller.send(["cmd": "pair", "pin": Self.pin])
    print("pair-setup M1–M6 as aiohomekit saw it (debug build): \(ContinuousClock.now - started)")
    #expect(data["AccessoryPairingID"]?.stringValue == hub.identity.deviceID)
    let controllerID = try #require(data["iOSPairingId"]?.stringValue)
    let state = try #require(hub.accessories.lastPairingState)
    #expect(state.pairings.map(\.identifier) == [controllerID])
    #expect(state.pairings.first?.isAdmin == true)
    #expect(state.pairings.first?.publicKey == hexBytes(data["iOSDeviceLTPK"]?.stringValue ?? ""))
    #expect(state.failedSetupAttempts == 0)

    // Pairing again while paired: unavailable.
    #expect(try await controller.failure(["cmd": "pair", "pin": Self.pin, "name": "again"]) == "UnavailableError")

    let accessories = try await controller.send(["cmd": "accessories"])
    #expect(accessories.arrayValue?.compactMap { $0["aid"]?.integerValue } == [1, 2, 3, 4])

    let read = try await controller.send(["cmd": "get", "ids": [[2, 9], [4, 10], [3, 9]]])
    #expect(read["2.9", "value"] == .bool(false))
    #expect(read["4.10", "value"] == .integer(50))
    #expect(read["3.9", "value"] == .null)

    try await controller.send(["cmd": "put", "values": [[2, 9, true], [4, 10, 75]]])
    let writes = hub.accessories.writes
    #expect(writes.map(\.0.id) == [TestAccessories.switchOn, TestAccessories.brightness])
    #expect(writes.allSatisfy { $0.controller == controllerID })
    #expect(writes.first?.0.value == .bool(true))
    #expect(hub.accessories.value(TestAccessories.switchOn) == .bool(true))

    // An out-of-range write gets -70410 from the delegate, passed through in a 207.
    let refused = try await controller.send(["cmd": "put", "values": [[4, 10, 500]]])
    #expect(refused["4.10", "status"] == .integer(Int64(HAPStatus.invalidValue.rawValue)))

    // A write with "r": the value comes back.
    let answered = try await controller.send([
      "cmd": "put_raw", "body": ["characteristics": [["aid": 4, "iid": 10, "value": 60, "r": true]]],
    ])
    #expect(answered["characteristics"]?.arrayValue?.first?["value"] == .integer(60))

    // Subscribe; hub-side changes arrive as events: coalesced ones, and a button press at once.
    try await controller.send(["cmd": "subscribe", "ids": [[4, 10], [3, 9]]])
    let beforeNotify = ContinuousClock.now
    hub.server.notify([(TestAccessories.brightness, .integer(20))], immediately: false, except: nil)
    hub.server.notify([(TestAccessories.brightness, .integer(30))], immediately: false, except: nil)
    let notifyGap = ContinuousClock.now - beforeNotify
    try await controller.waitForEvent { events in events.contains { $0["4.10", "value"] == .integer(30) } }
    // The 20 was replaced by the 30 before it went out: when both came within the 50 ms of
    // coalescing. (A loaded machine can stop this thread between the two calls for longer; then
    // the 20 goes out on its own, as it should.)
    if notifyGap < .milliseconds(50) {
      #expect(controller.events.compactMap { $0["4.10"] }.count == 1, "the two changes came \(notifyGap) apart")
    } else {
      print("the two changes came \(notifyGap) apart, beyond the 50 ms of coalescing: not checked")
    }
    hub.server.notify([(TestAccessories.buttonEvent, .integer(1))], immediately: true, except: nil)
    try await controller.waitForEvent { events in events.contains { $0["3.9", "value"] == .integer(1) } }
    // A change caused by this controller's own write is not echoed to it.
    hub.server.notify([(TestAccessories.brightness, .integer(40))], immediately: true, except: controllerID)
    hub.server.notify([(TestAccessories.buttonEvent, .integer(2))], immediately: true, except: nil)
    try await controller.waitForEvent { events in events.contains { $0["3.9", "value"] == .integer(2) } }
    #expect(!controller.events.contains { $0["4.10", "value"] == .integer(40) })
    // Not subscribed: no event for the switch.
    hub.server.notify([(TestAccessories.switchOn, .bool(false))], immediately: true, except: nil)
    hub.server.notify([(TestAccessories.buttonEvent, .integer(0))], immediately: true, except: nil)
    try await controller.waitForEvent { events in events.contains { $0["3.9", "value"] == .integer(0) } }
    #expect(!controller.events.contains { $0["2.9"] != nil })

    // A read with the extra fields: ev reflects this session's subscriptions.
    let meta = try await controller.send(["cmd": "get_raw", "path": "/characteristics?id=4.10,2.9&ev=1&type=1"])
    let items = meta["characteristics"]?.arrayValue ?? []
    #expect(items.first?["ev"] == .bool(true) && items.first?["type"] == .string("8"))
    #expect(items.last?["ev"] == .bool(false))

    print("aiohomekit transcript:\n\(controller.transcript)")
    await hub.stop()
  }

  @Test func maxTriesAfterAHundredFailures() async throws {
    let hub = try await ServerUnderTest(pairingState: HAPPairingState(failedSetupAttempts: 100))
    let controller = try await AiohomekitController.start(port: hub.port)
    #expect(try await controller.failure(["cmd": "pair", "pin": Self.pin]) == "MaxTriesError")
    #expect(hub.accessories.lastPairingState == nil)
    await hub.stop()
  }

  @Test func aHundredthWrongCodeLeadsToMaxTries() async throws {
    let hub = try await ServerUnderTest(pairingState: HAPPairingState(failedSetupAttempts: 99))
    let controller = try await AiohomekitController.start(port: hub.port)
    #expect(try await controller.failure(["cmd": "pair", "pin": "111-22-333"]) == "AuthenticationError")
    #expect(hub.accessories.lastPairingState?.failedSetupAttempts == 100)
    #expect(try await controller.failure(["cmd": "pair", "pin": Self.pin]) == "MaxTriesError")
    await hub.stop()
  }

  @Test func aRegularControllerReadsAndWritesButDoesNotManagePairings() async throws {
    let hub = try await ServerUnderTest()
    let admin = try await AiohomekitController.start(port: hub.port)
    let adminData = try await admin.send(["cmd": "pair", "pin": Self.pin])
    let adminID = try #require(adminData["iOSPairingId"]?.stringValue)
    let guestData = try await admin.send(["cmd": "add_controller", "permissions": "User"])
    let guestID = try #require(guestData["iOSPairingId"]?.stringValue)
    #expect(hub.accessories.lastPairingState?.pairings.map(\.isAdmin) == [true, false])

    let guest = try await AiohomekitController.start(port: hub.port)
    try await guest.send(["cmd": "load", "name": "guest", "data": guestData.foundation])
    let read = try await guest.send(["cmd": "get", "name": "guest", "ids": [[4, 10]]])
    #expect(read["4.10", "value"] == .integer(50))
    try await guest.send(["cmd": "put", "name": "guest", "values": [[2, 9, true]]])
    #expect(hub.accessories.writes.last?.controller == guestID)
    // Listing and adding pairings is for admins: TLV error 2 (authentication).
    #expect(try await guest.failure(["cmd": "list_pairings", "name": "guest"]) == "UnpairedError")
    #expect(try await guest.failure(["cmd": "add_controller", "name": "guest"]) == "AuthenticationError")

    let listed = try await admin.send(["cmd": "list_pairings"])
    #expect(Set(listed.arrayValue?.compactMap { $0["pairingId"]?.stringValue } ?? []) == [adminID, guestID])

    // Removing the guest closes its open session, and it cannot verify again.
    try await admin.send(["cmd": "remove_pairing", "id": guestID])
    #expect(try await guest.send(["cmd": "wait_closed", "name": "guest"]) == .bool(true))
    #expect(hub.accessories.lastPairingState?.pairings.map(\.identifier) == [adminID])
    #expect(try await guest.failure(["cmd": "get", "name": "guest", "ids": [[4, 10]]]) != nil)
    // The admin goes on; removing the last admin unpairs the accessory.
    #expect(try await admin.failure(["cmd": "get", "ids": [[4, 10]]]) == nil)
    try await admin.send(["cmd": "remove_pairing", "id": adminID])
    #expect(hub.accessories.lastPairingState?.isPaired == false)
    await hub.stop()
  }

  @Test func aFreshProcessReconnectsWithTheStoredPairing() async throws {
    let hub = try await ServerUnderTest()
    let first = try await AiohomekitController.start(port: hub.port)
    let data = try await first.send(["cmd": "pair", "pin": Self.pin])
    try first.process.closeInput()
    _ = try await offPool { try first.process.waitForExit(within: 120) }

    let second = try await AiohomekitController.start(port: hub.port)
    try await second.send(["cmd": "load", "data": data.foundation])
    let verifySeconds = try await second.send(["cmd": "verify"])
    print("connect + pair-verify as aiohomekit saw it (debug build): \(verifySeconds.doubleValue ?? -1) s")
    #expect(verifySeconds.doubleValue != nil)
    let read = try await second.send(["cmd": "get", "ids": [[2, 9]]])
    #expect(read["2.9", "value"] == .bool(false))
    await hub.stop()
  }

  @Test func aFailedSaveKeepsTheAccessoryUnpaired() async throws {
    let hub = try await ServerUnderTest()
    hub.accessories.recorded.withLock { $0.failPersisting = true }
    let controller = try await AiohomekitController.start(port: hub.port)
    #expect(try await controller.failure(["cmd": "pair", "pin": Self.pin]) != nil)
    #expect(await hub.server.pairingState.isPaired == false)
    hub.accessories.recorded.withLock { $0.failPersisting = false }
    #expect(try await controller.failure(["cmd": "pair", "pin": Self.pin]) == nil)
    #expect(await hub.server.pairingState.isPaired)
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

@Suite(.serialized) struct AiohomekitPairingRulesTests {
  static let pin = ServerUnderTest.code.description

  @Test func aSecondPairSetupIsBusyUntilTheFirstConnectionGoes() async throws {
    let hub = try await ServerUnderTest()
    // Both controllers are up before the first starts: starting Python on a loaded machine can
    // take longer than the 60 s after which an abandoned setup stops blocking others.
    let first = try await AiohomekitController.start(port: hub.port)
    let second = try await AiohomekitController.start(port: hub.port)
    // The first's M1 and the second's attempt follow each other on one thread of their own, with
    // no step back to the cooperative pool in between: such a step waits until a pool thread is
    // free, and in a full run the synchronous tests beside this one hold both threads (2 cores)
    // for minutes at a time. Once 60 s (PairSetup.abandonedAfter) passed between the two, the
    // first's setup no longer blocked: the second paired, and then could not pair again (issue
    // 42: both expectations missed under load 23). Here only the two controllers' own work lies
    // between them, and the server answers on its event loops, not on the pool.
    let (busy, took) = try await offPool {
      let begun = ContinuousClock.now
      try first.send(["cmd": "pair_start"])
      let failure = try second.failure(["cmd": "pair", "pin": Self.pin])
      return (failure, ContinuousClock.now - begun)
    }
    #expect(
      busy == "BusyError",
      """
      the second controller's pair-setup, \(took) after the first's began (a setup blocks others \
      for 60 s), ended with \(busy ?? "success")
      first:\n\(first.transcript)
      second:\n\(second.transcript)
      """)
    // The abandoned setup stops blocking once its connection is gone (at once, not after 60 s).
    let released = try await offPool {
      try first.send(["cmd": "pair_abandon"])
      let closed = ContinuousClock.now
      try eventually("the abandoned pair-setup to be released", within: 120) { hub.server.connectionCount == 0 }
      return ContinuousClock.now - closed
    }
    let again = try await second.failure(["cmd": "pair", "pin": Self.pin])
    #expect(again == nil, "released \(released) after the close; second:\n\(second.transcript)")
    await hub.stop()
  }

  @Test func atMostSixteenPairings() async throws {
    let hub = try await ServerUnderTest()
    let admin = try await AiohomekitController.start(port: hub.port)
    try await admin.send(["cmd": "pair", "pin": Self.pin])
    for _ in 1..<HAPPairingState.maximumPairings { try await admin.send(["cmd": "add_controller"]) }
    #expect(hub.accessories.lastPairingState?.pairings.count == 16)
    #expect(try await admin.failure(["cmd": "add_controller"]) == "MaxPeersError")
    await hub.stop()
  }

  @Test func stopClosesEverySession() async throws {
    let hub = try await ServerUnderTest()
    let admin = try await AiohomekitController.start(port: hub.port)
    try await admin.send(["cmd": "pair", "pin": Self.pin])
    try await admin.send(["cmd": "verify"])
    // The pair-setup's own connection closed before "pair" answered; the server forgets it on
    // its event loop, which may come after the verify's connection was admitted.
    try await offPool {
      try eventually("one connection (the verified session)", within: 120) { hub.server.connectionCount == 1 }
    }
    await hub.server.stop()
    #expect(try await admin.send(["cmd": "wait_closed"]) == .bool(true))
    await hub.stop()
  }

  @Test func timedWritesCarryTheirPreparedPid() async throws {
    let hub = try await ServerUnderTest()
    let admin = try await AiohomekitController.start(port: hub.port)
    try await admin.send(["cmd": "pair", "pin": Self.pin])
    // A ttl of an hour: the prepared write must come within it, and between two steps of an async
    // test a loaded run can pass minutes waiting for a thread of the cooperative pool.
    let prepared = try await admin.send(["cmd": "prepare", "body": ["ttl": 3_600_000, "pid": 42]])
    #expect(prepared["status"] == .integer(0))
    try await admin.send([
      "cmd": "put_raw", "body": ["characteristics": [["aid": 2, "iid": 9, "value": true]], "pid": 42],
    ])
    #expect(hub.accessories.writes.last?.0.isTimed == true)
    // The pid is used up: the same pid again is not timed, nor one never prepared.
    try await admin.send([
      "cmd": "put_raw", "body": ["characteristics": [["aid": 2, "iid": 9, "value": false]], "pid": 42],
    ])
    #expect(hub.accessories.writes.last?.0.isTimed == false)
    try await admin.send(["cmd": "put", "values": [[2, 9, true]]])
    #expect(hub.accessories.writes.last?.0.isTimed == false)
    await hub.stop()
  }
}
