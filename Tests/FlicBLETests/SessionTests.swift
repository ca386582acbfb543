import FlicBLEProtocol
import FlicBLESimulator
import Testing

@Suite("central and simulated button in memory")
struct SessionTests {
  func paired() throws -> (InMemoryLink, StoredButton) {
    var link = InMemoryLink(button: .seeded(), stored: nil)
    let events = link.drain()
    let stored = try #require(
      events.compactMap { if case .paired(let button) = $0 { button } else { nil } }.first, "events: \(events)")
    #expect(link.central.state == .established)
    return (link, link.central.stored ?? stored)
  }

  @Test func pairsByFullVerify() throws {
    var link = InMemoryLink(button: .seeded(), stored: nil)
    let events = link.drain()
    guard case .paired(let stored) = events.first else { Issue.record("not paired: \(events)"); return }
    #expect(stored.serialNumber == "BG00-C00001")
    #expect(events.contains { if case .battery(let mv) = $0 { mv > 2990 && mv < 3010 } else { false } })
    #expect(events.contains(.eventsStarted(bootIDChanged: true, hasQueuedEvents: false)))
    #expect(link.button.pairingCount == 1)
    #expect(!link.button.isInPublicMode)
  }

  @Test func refusesAButtonSignedByAnUntrustedKey() {
    var options = InMemoryLink.options()
    options.trustedKeys = .shortcutLabs
    var link = InMemoryLink(button: .seeded(), stored: nil, options: options)
    #expect(link.drain() == [.failed(.notGenuine)])
    #expect(link.button.pairingCount == 0)
  }

  @Test func refusesAnAddressOtherThanTheConnectedOne() {
    var options = InMemoryLink.options()
    options.expectedAddress = [1, 2, 3, 4, 5, 6]
    var link = InMemoryLink(button: .seeded(), stored: nil, options: options)
    #expect(link.drain() == [.failed(.unexpectedAddress)])
  }

  @Test func aButtonNotInPublicModeRefusesPairing() throws {
    var (first, _) = try paired()
    first.button.disconnect()
    var second = InMemoryLink(button: first.button, stored: nil)
    #expect(second.drain() == [.failed(.notInPublicMode)])
    #expect(second.button.pairingCount == 1)
  }

  @Test func deliversClickDoubleClickAndHold() throws {
    var (link, _) = try paired()
    link.press(.click)
    link.press(.doubleClick)
    link.press(.hold)
    let actions = link.presses.map(\.action)
    #expect(actions == [.down, .up, .click, .down, .up, .down, .up, .doubleClick, .down, .hold, .up])
    #expect(link.presses.allSatisfy { !$0.wasQueued })
    let counts = link.presses.map(\.eventCount)
    #expect(counts == counts.sorted())
  }

  @Test func reconnectsByQuickVerifyAndGetsQueuedPressesOnce() throws {
    var (link, _) = try paired()
    link.press(.click)
    var stored = try #require(link.central.stored)
    var button = link.button
    button.disconnect()
    button.advance(seconds: 5)
    _ = button.press(.hold)
    button.advance(seconds: 20)

    var second = InMemoryLink(button: button, stored: stored)
    let events = second.drain()
    #expect(events.first == .verified)
    let queued = events.compactMap { if case .button(let press) = $0 { press } else { nil } }
    #expect(queued.map(\.action) == [.down, .hold, .up])
    #expect(queued.allSatisfy { $0.wasQueued && $0.ageSeconds > 19 && $0.ageSeconds < 22 })
    #expect(events.contains(.queuedEventsDelivered))
    second.press(.click)
    #expect(second.presses.map(\.action) == [.down, .up, .click])

    // A third connection from the cursor persisted by the second: nothing is delivered twice.
    stored = try #require(second.central.stored)
    button = second.button
    button.disconnect()
    var third = InMemoryLink(button: button, stored: stored)
    let again = third.drain()
    #expect(again.contains(.verified))
    #expect(!again.contains { if case .button = $0 { true } else { false } })
    #expect(again.contains(.eventsStarted(bootIDChanged: false, hasQueuedEvents: false)))
  }

  @Test func anAcknowledgementLostWithTheLinkDoesNotDeliverTwice() throws {
    let (link, _) = try paired()
    var button = link.button
    var stored = try #require(link.central.stored)
    button.disconnect()
    _ = button.press(.click)

    // Reconnect, receive the queued click, then lose the link before the ack reaches the button.
    button.connect()
    var central = FlicBLECentral(stored: stored, options: InMemoryLink.options())
    var toButton = central.start()
    var seen: [ButtonPress] = []
    while !toButton.isEmpty {
      let write = toButton.removeFirst()
      for notification in button.receive(write) {
        let step = central.receive(notification)
        seen += step.events.compactMap { if case .button(let press) = $0 { press } else { nil } }
        let isAck = step.writes.contains { $0.count > 1 && $0[1] == ToButtonOpcode.ackButtonEventsInd.rawValue }
        if !isAck { toButton += step.writes }
      }
    }
    #expect(seen.map(\.action) == [.down, .up, .click])
    button.disconnect()

    // The button still holds the click (never acknowledged); a central with a stale cursor gets it again...
    let stale = InMemoryLink(button: button, stored: stored)
    #expect(stale.presses.map(\.action) == [.down, .up, .click])
    // ...but the central that persisted its cursor does not.
    stored = try #require(central.stored)
    var fresh = InMemoryLink(button: button, stored: stored)
    #expect(fresh.presses.isEmpty)
    #expect(fresh.drain().contains(.eventsStarted(bootIDChanged: false, hasQueuedEvents: false)))
  }

  @Test func reportsAButtonResetByItsOwner() throws {
    var (link, stored) = try paired()
    let notifications = link.button.resetByOwner()
    link.deliver(notifications: notifications)
    #expect(link.drain().contains(.linkEnded(reason: DisconnectReason.byUser.rawValue)))
    var button = link.button
    button.connect()
    var again = InMemoryLink(button: button, stored: stored)
    #expect(again.drain() == [.pairingGone])
  }

  @Test func batteryNameAndFirmware() throws {
    var (link, _) = try paired()
    try link.request(.getBatteryLevel)
    try link.request(.getFirmwareVersion)
    try link.request(.setName(name: "Bedside", timestampUTCMilliseconds: 1_700_000_000_000, force: false))
    try link.request(.getName)
    let events = link.drain()
    #expect(events.contains { if case .battery(let mv) = $0 { mv > 2990 && mv < 3010 } else { false } })
    #expect(events.contains(.firmwareVersion(10)))
    #expect(events.filter { $0 == .name("Bedside", timestampUTCMilliseconds: 1_700_000_000_000) }.count == 2)
    // An older, unforced name loses to the newer one.
    try link.request(.setName(name: "Old", timestampUTCMilliseconds: 1_600_000_000_000, force: false))
    #expect(link.drain() == [.name("Bedside", timestampUTCMilliseconds: 1_700_000_000_000)])
  }

  @Test func aSmallMTUFragmentsBothWays() throws {
    var link = InMemoryLink(button: .seeded(), stored: nil, options: InMemoryLink.options(mtu: 23))
    #expect(link.drain().contains { if case .paired = $0 { true } else { false } })
  }

  @Test func theButtonEndsTheLinkOnABadMAC() throws {
    var (link, _) = try paired()
    var write = try link.central.request(.getBatteryLevel)
    write[0][write[0].count - 1] ^= 0x01
    link.deliver(writes: write)
    #expect(link.drain() == [.linkEnded(reason: DisconnectReason.invalidSignature.rawValue)])
  }

  @Test func theButtonRefusesAReplayedPacket() throws {
    var (link, _) = try paired()
    let write = try link.central.request(.getBatteryLevel)
    link.deliver(writes: write)
    _ = link.drain()
    link.deliver(writes: write)
    #expect(link.drain() == [.linkEnded(reason: DisconnectReason.invalidSignature.rawValue)])
  }

  @Test func theCentralFailsOnATamperedNotification() throws {
    var (link, _) = try paired()
    var notifications = link.button.press(.click)
    notifications[0][3] ^= 0x40
    link.deliver(notifications: notifications)
    #expect(link.drain().first == .failed(.badMAC))
  }

  @Test func aForgedQuickVerifyRefusalIsNotBelieved() throws {
    let (link, stored) = try paired()
    var button = link.button
    button.disconnect()
    button.connect()
    var central = FlicBLECentral(stored: stored, options: InMemoryLink.options())
    let request = central.start()[0]
    // An attacker answers first, with an unauthenticated refusal for the central's tmp id.
    let forged: [UInt8] = [0x00, FromButtonOpcode.quickVerifyNegativeResponse.rawValue] + Array(request[10..<14])
    var step = central.receive(forged)
    #expect(step.events.isEmpty)
    #expect(central.state == .confirmingUnpaired)
    var events: [CentralEvent] = []
    var writes = step.writes
    while !writes.isEmpty {
      let write = writes.removeFirst()
      for notification in button.receive(write) {
        step = central.receive(notification)
        events += step.events
        writes += step.writes
      }
    }
    #expect(events == [.failed(.refusalNotConfirmed)])
    #expect(button.pairingCount == 1)
  }

  @Test func theButtonIgnoresRequestsBeforeVerify() throws {
    var button = SimulatedFlicButton.seeded()
    button.connect()
    let start = ToButtonMessage.initButtonEvents(InitButtonEventsRequest(eventCount: 0, bootID: 0), light: true)
    for message in [ToButtonMessage.getBatteryLevel, .getName, start, .ackButtonEvents(eventCount: 9)] {
      #expect(button.receive([0x00] + message.encoded()).isEmpty)
      #expect(button.receive([0x00] + message.encoded() + [1, 2, 3, 4, 5]).isEmpty)
    }
    // FullVerifyRequest2 without FullVerifyRequest1 first.
    let request2 = FullVerifyRequest2(
      publicKey: Array(repeating: 9, count: 32), clientRandom: Array(repeating: 1, count: 8), flags: 0x80,
      verifier: Array(repeating: 0, count: 16))
    #expect(button.receive([0x00] + ToButtonMessage.fullVerifyRequest2(request2).encoded()).isEmpty)
    #expect(button.pairingCount == 0)
    _ = button.press(.click)
    #expect(button.receive([0x00]).isEmpty)
  }

  @Test func aWrongVerifierIsRefused() throws {
    var button = SimulatedFlicButton.seeded()
    button.connect()
    let response1 = button.receive([0x00] + ToButtonMessage.fullVerifyRequest1(tmpID: 7).encoded())
    let connection = FrameHeader(byte: response1[0][0]).connectionID
    let request2 = FullVerifyRequest2(
      publicKey: Array(repeating: 9, count: 32), clientRandom: Array(repeating: 1, count: 8), flags: 0x80,
      verifier: Array(repeating: 0, count: 16))
    let answer = button.receive([connection] + ToButtonMessage.fullVerifyRequest2(request2).encoded())
    #expect(answer.count == 1)
    #expect(try FromButtonMessage.decode(Array(answer[0].dropFirst())) == .fullVerifyFail(reason: 0))
    #expect(button.pairingCount == 0)
  }
}
