import Crypto
import HAP
import NIOPosix
import PatchbayTestSupport
import PatchbayValues
import Testing

/// The controller side (HAPController, HAPClientSession) against our own HAPServer in this
/// process, over real TCP: pair-setup, pair-verify, reads, writes, events, /pairings, errors.
@Suite(.serialized) struct ControllerTests {
  static let host = "127.0.0.1"

  @Test func pairVerifyReadWriteSubscribeAndManagePairings() async throws {
    let hub = try await ServerUnderTest()
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let controller = HAPController(identity: .generate(), group: group)

    // A wrong code: the accessory's M4 says authentication, and counts the attempt.
    await #expect(throws: HAPClientError.pairing(.authentication, step: 4)) {
      try await controller.pairSetup(host: Self.host, port: hub.port, code: HAPSetupCode("111-22-333")!)
    }
    #expect(hub.accessories.lastPairingState?.failedSetupAttempts == 1)

    let accessory = try await controller.pairSetup(host: Self.host, port: hub.port, code: ServerUnderTest.code)
    #expect(accessory.pairingID == hub.identity.deviceID)
    #expect(accessory.publicKey == Array(hub.identity.signingKey.publicKey.rawRepresentation))
    let ours = HAPPairing(
      identifier: controller.identity.pairingID, publicKey: controller.identity.publicKey, isAdmin: true)
    #expect(hub.accessories.lastPairingState?.pairings == [ours])

    // Paired already: unavailable.
    let other = HAPController(identity: .generate(), group: group)
    await #expect(throws: HAPClientError.pairing(.unavailable, step: 2)) {
      try await other.pairSetup(host: Self.host, port: hub.port, code: ServerUnderTest.code)
    }

    let session = try await controller.connect(host: Self.host, port: hub.port, accessory: accessory)
    let database = try await session.accessories()
    #expect(database["accessories"]?.arrayValue?.compactMap { $0["aid"]?.integerValue } == [1, 2, 3, 4])

    let read = try await session.read(
      [TestAccessories.switchOn, TestAccessories.brightness, TestAccessories.buttonEvent], fields: [.type])
    #expect(read.map(\.id) == [TestAccessories.switchOn, TestAccessories.brightness, TestAccessories.buttonEvent])
    #expect(read.map(\.value) == [.bool(false), .integer(50), .null])
    #expect(read.allSatisfy { $0.status == .success })
    #expect(read[1].fields["type"] == .string("8"))
    // A characteristic that does not exist: its own status in a 207, not a throw.
    let missing = try await session.read([TestAccessories.switchOn, HAPCharacteristicID(aid: 9, iid: 9)])
    #expect(missing.map(\.status) == [.success, .resourceDoesNotExist])

    let written = try await session.write([
      HAPWrite(id: TestAccessories.switchOn, value: .bool(true)),
      HAPWrite(id: TestAccessories.brightness, value: .integer(75)),
    ])
    #expect(written.map(\.status) == [.success, .success])
    #expect(hub.accessories.writes.map(\.controller) == [controller.identity.pairingID, controller.identity.pairingID])
    #expect(hub.accessories.value(TestAccessories.brightness) == .integer(75))
    let refused = try await session.write([HAPWrite(id: TestAccessories.brightness, value: .integer(500))])
    #expect(refused.map(\.status) == [.invalidValue])
    let answered = try await session.write([
      HAPWrite(id: TestAccessories.brightness, value: .integer(60), wantsResponse: true)
    ])
    #expect(answered.first?.value == .integer(60))

    // Subscribed characteristics' changes arrive as events; others do not.
    let events = CollectedEvents(session)
    let subscribed = try await session.subscribe([TestAccessories.brightness, TestAccessories.buttonEvent])
    #expect(subscribed.map(\.status) == [.success, .success])
    hub.server.notify([(TestAccessories.switchOn, .bool(false))], immediately: true, except: nil)
    hub.server.notify([(TestAccessories.brightness, .integer(30))], immediately: false, except: nil)
    hub.server.notify([(TestAccessories.buttonEvent, .integer(2))], immediately: true, except: nil)
    try await events.waitFor("the brightness and the button press") { values in
      values.contains(HAPCharacteristicValue(id: TestAccessories.brightness, value: .integer(30)))
        && values.contains(HAPCharacteristicValue(id: TestAccessories.buttonEvent, value: .integer(2)))
    }
    #expect(!events.all.contains { $0.id == TestAccessories.switchOn })

    // /pairings: list, add a second controller, remove it.
    #expect(try await session.listPairings() == [ours])
    let guest = HAPPairing(identifier: other.identity.pairingID, publicKey: other.identity.publicKey, isAdmin: false)
    try await session.addPairing(guest)
    #expect(try await session.listPairings() == [ours, guest])
    let guestSession = try await other.connect(host: Self.host, port: hub.port, accessory: accessory)
    // A regular user may not manage pairings.
    await #expect(throws: HAPClientError.pairing(.authentication, step: 2)) {
      try await guestSession.listPairings()
    }
    try await session.removePairing(guest.identifier)
    #expect(try await session.listPairings() == [ours])
    // The accessory closed the removed controller's session, and forgot it.
    let guestEvents = CollectedEvents(guestSession)
    try await guestEvents.waitFor("the removed controller's session to end") { _ in guestEvents.hasEnded }
    let refusedGuest = await #expect(throws: HAPClientError.self) {
      try await other.connect(host: Self.host, port: hub.port, accessory: accessory)
    }
    #expect(refusedGuest == .pairing(.authentication, step: 4))
    #expect(refusedGuest?.isAuthentication == true)

    await session.close()
    try await group.shutdownGracefully()
    await hub.stop()
  }

  @Test func anAccessoryThatIsNotThePairedOneFailsPairVerify() async throws {
    let hub = try await ServerUnderTest()
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let controller = HAPController(identity: .generate(), group: group)
    let accessory = try await controller.pairSetup(host: Self.host, port: hub.port, code: ServerUnderTest.code)

    // Another key under the same device id: the accessory's M2 signature does not verify.
    let impostor = HAPPairedAccessory(
      pairingID: accessory.pairingID, publicKey: Array(Curve25519.Signing.PrivateKey().publicKey.rawRepresentation))
    let wrongKey = await #expect(throws: HAPClientError.self) {
      try await controller.connect(host: Self.host, port: hub.port, accessory: impostor)
    }
    #expect(wrongKey?.isAuthentication == true)
    guard case .accessoryNotAuthenticated = wrongKey else {
      Issue.record("expected accessoryNotAuthenticated, got \(String(describing: wrongKey))")
      return
    }
    // Another device id: refused before our signature is sent.
    let renamed = HAPPairedAccessory(pairingID: "00:11:22:33:44:55", publicKey: accessory.publicKey)
    let wrongID = await #expect(throws: HAPClientError.self) {
      try await controller.connect(host: Self.host, port: hub.port, accessory: renamed)
    }
    #expect(wrongID?.description.contains("not 00:11:22:33:44:55") == true)

    // The right one still verifies; removing our own pairing ends the session and unpairs.
    let session = try await controller.connect(host: Self.host, port: hub.port, accessory: accessory)
    let events = CollectedEvents(session)
    try await session.removePairing(controller.identity.pairingID)
    try await events.waitFor("our session to end") { _ in events.hasEnded }
    #expect(hub.accessories.lastPairingState?.isPaired == false)
    await #expect(throws: HAPClientError.pairing(.authentication, step: 4)) {
      try await controller.connect(host: Self.host, port: hub.port, accessory: accessory)
    }
    // Requests on a closed session fail clearly instead of hanging.
    await #expect(throws: HAPClientError.connectionClosed) { try await session.accessories() }

    try await group.shutdownGracefully()
    await hub.stop()
  }

  /// Requests made at once go out one at a time: our server closes a connection that
  /// pipelines more than 16, and every one of these is answered.
  @Test func concurrentRequestsGoOutOneAtATime() async throws {
    let hub = try await ServerUnderTest()
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let controller = HAPController(identity: .generate(), group: group)
    let accessory = try await controller.pairSetup(host: Self.host, port: hub.port, code: ServerUnderTest.code)
    let session = try await controller.connect(host: Self.host, port: hub.port, accessory: accessory)
    let values = try await withThrowingTaskGroup(of: JSONValue?.self) { tasks in
      for _ in 0..<64 {
        tasks.addTask { try await session.read([TestAccessories.brightness]).first?.value }
      }
      return try await tasks.reduce(into: []) { $0.append($1) }
    }
    #expect(values.count == 64)
    #expect(values.allSatisfy { $0 == .integer(50) })
    await session.close()
    try await group.shutdownGracefully()
    await hub.stop()
  }

  /// An accessory that accepts the connection and never answers: the request fails with
  /// timedOut instead of waiting forever.
  @Test func anAccessoryThatNeverAnswersTimesOut() async throws {
    let silent = try SilentListener(backlog: 8)
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let controller = HAPController(identity: .generate(), group: group, requestTimeout: .seconds(1))
    await #expect(throws: HAPClientError.timedOut(seconds: 1)) {
      try await controller.pairSetup(host: Self.host, port: silent.port, code: ServerUnderTest.code)
    }
    try await group.shutdownGracefully()
  }
}
