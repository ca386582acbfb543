import FlicBLEProtocol
import Testing

@Suite("packet codec")
struct CodecTests {
  static let toButton: [ToButtonMessage] = [
    .fullVerifyRequest1(tmpID: 0xDEAD_BEEF),
    .fullVerifyRequest2(
      FullVerifyRequest2(publicKey: Array(0..<32), clientRandom: Array(40..<48), flags: 0x80, verifier: Array(60..<76))),
    .quickVerifyRequest(QuickVerifyRequest(clientRandom: Array(1...7), flags: 0x40, tmpID: 9, pairingID: 0x0102_0304)),
    .initButtonEvents(
      InitButtonEventsRequest(
        eventCount: 77, bootID: 0xABCD, autoDisconnectTime: 300, maxQueuedPackets: 30, maxQueuedPacketsAge: 60),
      light: true),
    .initButtonEvents(InitButtonEventsRequest(eventCount: 1, bootID: 2, enableHID: true), light: false),
    .ackButtonEvents(eventCount: 4242),
    .getFirmwareVersion, .getBatteryLevel, .getName,
    .setName(name: "Bedside ✓", timestampUTCMilliseconds: 1_765_000_000_000, force: true),
    .setConnectionParameters(intervalMin: 80, intervalMax: 90, latency: 17, timeout: 800),
    .setAutoDisconnectTime(seconds: 511), .pingResponse, .forceBtDisconnect(restartAdvertising: true),
    .disconnectVerifiedLink,
    .initButtonEventsDuo(eventCounts: (5, 9), bootID: 3, limits: InitButtonEventsRequest(eventCount: 0, bootID: 3)),
    .enablePushTwist(button0: true, button1: false),
    .testIfReallyUnpaired(
      publicKey: Array(0..<32), clientRandom: Array(0..<8), pairingID: 5, pairingToken: Array(0..<16)),
  ]

  static let fromButton: [FromButtonMessage] = [
    .fullVerifyResponse1(
      FullVerifyResponse1(
        tmpID: 1, signature: Array(repeating: 7, count: 64), address: [1, 2, 3, 4, 5, 6], addressType: 0,
        publicKey: Array(100..<132), buttonRandom: Array(1...8), flags: 2)),
    .fullVerifyResponse2(
      FullVerifyResponse2(
        flags: 5, buttonUUID: Array(0..<16), name: "Kitchen", firmwareVersion: 12, batteryLevel: 853,
        serialNumber: "BG00-C00001")),
    .noLogicalConnectionSlots(tmpIDs: [1, 2, 3]), .fullVerifyFail(reason: 1), .firmwareVersion(11),
    .quickVerifyNegative(tmpID: 99),
    .quickVerifyResponse(QuickVerifyResponse(buttonRandom: Array(8..<16), tmpID: 5, flags: 1)),
    .disconnectedVerifiedLink(reason: 1),
    .initButtonEventsResponse(
      InitButtonEventsResponse(hasQueuedEvents: true, timestamp: 0x7FFF_0000_1234, eventCount: 8, bootID: 77)),
    .initButtonEventsResponse(
      InitButtonEventsResponse(hasQueuedEvents: false, timestamp: 5, eventCount: 8, bootID: nil)),
    .buttonEvents(
      ButtonEventNotification(
        pressCounter: 7,
        items: [
          ButtonEventItem(timestamp: 0xFFFF_FFFF_FFFF, code: .down, wasQueued: true),
          ButtonEventItem(timestamp: 2, code: .upDoubleClick, wasQueued: true, wasQueuedLast: true),
        ])),
    .nameUpdated("Hall"), .pingRequest, .name("Desk", timestampUTCMilliseconds: 123, isSetResponse: true),
    .name("", timestampUTCMilliseconds: 0, isSetResponse: false), .batteryLevel(BatteryLevel(raw: 1000)),
    .pushTwistData(flags: 0x13, angleDifference: -4096), .testIfReallyUnpairedResult(Array(0..<16)),
  ]

  @Test func toButtonRoundTrips() throws {
    for message in Self.toButton {
      #expect(try ToButtonMessage.decode(message.encoded()) == message, "\(message)")
    }
  }

  @Test func fromButtonRoundTrips() throws {
    for message in Self.fromButton {
      #expect(try FromButtonMessage.decode(message.encoded()) == message, "\(message)")
    }
  }

  @Test func wireSizesMatchTheSpecification() {
    #expect(ToButtonMessage.fullVerifyRequest1(tmpID: 0).encoded().count == 5)
    #expect(Self.toButton[1].encoded().count == 58)
    #expect(Self.toButton[2].encoded().count == 17)
    #expect(Self.toButton[3].encoded().count == 14)
    #expect(Self.fromButton[0].encoded().count == 117)
    #expect(Self.fromButton[1].encoded().count == 59)
    #expect(Self.fromButton[8].encoded().count == 15)
    #expect(Self.fromButton[9].encoded().count == 11)
  }

  /// Opcodes whose last field is a list or a name: a shorter packet is a shorter message, not an error.
  static let variableLength: Set<UInt8> = [2, 10, 12, 14, 16, 17]

  @Test func everyTruncationIsRefused() {
    #expect(throws: FlicBLEError.emptyPacket) { try ToButtonMessage.decode([]) }
    #expect(throws: FlicBLEError.emptyPacket) { try FromButtonMessage.decode([]) }
    for message in Self.toButton {
      let bytes = message.encoded()
      for length in 1..<bytes.count {
        let prefix = Array(bytes.prefix(length))
        if (try? ToButtonMessage.decode(prefix)) != nil {
          #expect(Self.variableLength.contains(bytes[0]), "\(message) cut at \(length) decoded")
        }
      }
    }
    for message in Self.fromButton {
      let bytes = message.encoded()
      for length in 1..<bytes.count {
        let prefix = Array(bytes.prefix(length))
        if (try? FromButtonMessage.decode(prefix)) != nil {
          #expect(Self.variableLength.contains(bytes[0]), "\(message) cut at \(length) decoded")
        }
      }
    }
    // A notification without a single whole item is refused.
    #expect(throws: FlicBLEError.self) { try FromButtonMessage.decode([12, 7, 0, 0, 0, 1, 2, 3]) }
    #expect(throws: FlicBLEError.packetTooShort(opcode: 0, length: 50, needed: 69)) {
      try FromButtonMessage.decode(Array(FromButtonMessage.fromButtonSample.prefix(50)))
    }
  }

  @Test func oversizedNamesAndUnknownOpcodesAreRefused() {
    #expect(throws: FlicBLEError.self) {
      try FromButtonMessage.decode([16, 0, 0, 0, 0, 0, 0] + Array(repeating: 65, count: 24))
    }
    #expect(throws: FlicBLEError.unknownOpcode(200)) { try FromButtonMessage.decode([200]) }
    #expect(throws: FlicBLEError.unknownOpcode(99)) { try ToButtonMessage.decode([99, 1, 2]) }
    var response2 = FromButtonMessage.fromButtonSample2
    response2[18] = 24  // name length beyond 23
    #expect(throws: FlicBLEError.self) { try FromButtonMessage.decode(response2) }
  }

  @Test func randomBytesNeverTrap() {
    var generator = SeededGenerator(seed: 42)
    for _ in 0..<20_000 {
      let length = Int.random(in: 0...140, using: &generator)
      var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      if !bytes.isEmpty { bytes[0] = UInt8.random(in: 0...40, using: &generator) }
      _ = try? FromButtonMessage.decode(bytes)
      _ = try? ToButtonMessage.decode(bytes)
      _ = try? TwistFromButtonMessage.decode(bytes)
      _ = try? TwistToButtonMessage.decode(bytes)
    }
  }

  @Test func eventCountsOfItemsFollowTheCounterRules() {
    // A double click: down 1, up 3, down 5, up 7; a hold: down 9, hold 10, up 11; a click: 13, 15, 16.
    let codes: [ButtonEventCode] = [
      .down, .upClickPending, .down, .upDoubleClick, .down, .hold, .upAfterHold, .down, .upClickPending,
      .singleClickTimeout,
    ]
    let notification = ButtonEventNotification(
      pressCounter: 16, items: codes.map { ButtonEventItem(timestamp: 0, code: $0) })
    #expect(notification.itemEventCounts == [1, 3, 5, 7, 9, 10, 11, 13, 15, 16])
  }

  @Test func eventCodesMeanWhatTheCModuleSays() {
    #expect(ButtonEventCode.down.actions == [.down])
    #expect(ButtonEventCode.upClickPending.actions == [.up])
    #expect(ButtonEventCode.singleClickTimeout.actions == [.click])
    #expect(ButtonEventCode.upSingleClick.actions == [.up, .click])
    #expect(ButtonEventCode.upDoubleClick.actions == [.up, .doubleClick])
    #expect(ButtonEventCode.hold.actions == [.hold])
    #expect(ButtonEventCode.upAfterHold.actions == [.up])
  }

  @Test func batteryMillivolts() {
    #expect(BatteryLevel(raw: 1024).millivolts == 3600)
    #expect(BatteryLevel(raw: 853).millivolts == 2999)
    #expect(BatteryLevel(millivolts: 3000).raw == 853)
  }
}

@Suite("framing")
struct FramingTests {
  @Test func headerBits() {
    let header = FrameHeader(byte: 0xA5)
    #expect(header.connectionID == 5 && header.newlyAssigned && header.moreFragments)
    #expect(FrameHeader(connectionID: 31, newlyAssigned: false, moreFragments: true).byte == 0x9F)
  }

  @Test func fragmentsAndReassembles() throws {
    let packet = Array(0..<117).map { UInt8($0) }
    for mtu in [23, 27, 64, 140] {
      let pieces = PacketFraming.headered.pieces(packet, connectionID: 3, newlyAssigned: true, mtu: mtu)
      #expect(pieces.allSatisfy { $0.count <= mtu - 3 })
      #expect(pieces.dropLast().allSatisfy { FrameHeader(byte: $0[0]).moreFragments })
      var reassembler = PacketReassembler(framing: .headered)
      var result: [UInt8]?
      for piece in pieces { result = try reassembler.receive(piece)?.packet }
      #expect(result == packet)
    }
  }

  @Test func refusesEmptyAndOversizedInput() throws {
    var reassembler = PacketReassembler(framing: .headered)
    #expect(throws: FlicBLEError.emptyPacket) { try reassembler.receive([]) }
    #expect(throws: FlicBLEError.emptyPacket) { try reassembler.receive([0x03]) }
    _ = try reassembler.receive([0x83] + Array(repeating: 1, count: 100))
    #expect(throws: FlicBLEError.packetTooLong(length: 130, maximum: 128)) {
      try reassembler.receive([0x83] + Array(repeating: 1, count: 30))
    }
    // After the refusal a fresh packet is whole again.
    #expect(try reassembler.receive([0x03, 20, 1])?.packet == [20, 1])
    var twist = PacketReassembler(framing: .twist)
    #expect(try twist.receive([9, 1, 2])?.packet == [9, 1, 2])
    #expect(throws: FlicBLEError.self) { try twist.receive(Array(repeating: 0, count: 129)) }
  }
}

@Suite("Twist codec")
struct TwistCodecTests {
  @Test func roundTrips() throws {
    let modes = (0..<13).map {
      TwistModeConfig(ledMode: 1, hasClick: $0 == 12, position: UInt16($0) * 4096, timeoutSeconds: 60)
    }
    let requests: [TwistToButtonMessage] = [
      .initButtonEvents(eventCount: 3, modes: modes, bootID: 9, apiVersion: 2), .ackButtonEvents(eventCount: 12),
      .updateTwistPosition(modeIndex: 4, newMinimum: -49152, receivedUpdatePackets: 7),
    ]
    for request in requests { #expect(try TwistToButtonMessage.decode(request.encoded()) == request) }
    #expect(requests[0].encoded().count == 75)
    let responses: [TwistFromButtonMessage] = [
      .initButtonEventsResponse(
        InitButtonEventsResponse(hasQueuedEvents: true, timestamp: 99, eventCount: 4, bootID: 5), apiVersion: 2),
      .buttonEvents(
        pressCounter: 3,
        items: [
          TwistButtonEventItem(event: ButtonEventItem(timestamp: 77, code: .down, wasQueued: true), modeIndex: 11)
        ]),
      .twistEvent(
        TwistRotation(
          modeIndex: 12, totalDelta: -8192, minimumDelta: -8388608, maximumDelta: 8388607, lastHubPacketCounter: 3)),
      .quickVerifyResponse(buttonRandom: Array(1...8), tmpID: 4),
      .fullVerifyResponse1(
        FullVerifyResponse1(
          tmpID: 3, signature: Array(repeating: 1, count: 64), address: Array(1...6), addressType: 0,
          publicKey: Array(repeating: 2, count: 32), buttonRandom: Array(1...8), flags: 0)),
      .fullVerifyResponse2(
        FullVerifyResponse2(
          flags: 1, buttonUUID: Array(0..<16), name: "Dial", firmwareVersion: 3, batteryLevel: 2900,
          serialNumber: "T1234"),
        color: "white"),
    ]
    for response in responses { #expect(try TwistFromButtonMessage.decode(response.encoded()) == response) }
    #expect(responses[0].encoded().count == 16)
    // Flic 2's 117 bytes, flags included: pyflic-ble's Twist handler refuses fewer.
    #expect(responses[4].encoded().count == 117)
    #expect(try TwistFromButtonMessage.decode(Array(responses[4].encoded().prefix(116))) == responses[4])
    #expect(responses[5].encoded().count == 75)
    #expect(throws: FlicBLEError.self) { try TwistFromButtonMessage.decode(Array(responses[5].encoded().prefix(74))) }
    #expect(
      TwistRotation(modeIndex: 0, totalDelta: 49152, minimumDelta: 0, maximumDelta: 0, lastHubPacketCounter: 0).turns
        == 1)
  }
}

extension FromButtonMessage {
  static var fromButtonSample: [UInt8] { CodecTests.fromButton[0].encoded() }
  static var fromButtonSample2: [UInt8] { CodecTests.fromButton[1].encoded() }
}

/// SplitMix64: reproducible pseudo-random input for the no-trap checks.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
