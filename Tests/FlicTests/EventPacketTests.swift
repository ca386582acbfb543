import FlicProtocol
import Testing

@Suite struct EventPacketTests {
  static let uuid: [UInt8] = Array(0x10..<0x20)

  /// Every event layout with its bytes, built by hand from the reference table.
  static let cases: [(EventPacket, [UInt8])] = [
    (
      .advertisement(
        Advertisement(
          scanID: 2, address: bedside, name: "F023abc", rssi: -60, isPrivate: false, alreadyVerified: true,
          alreadyConnectedToThisDevice: true, alreadyConnectedToOtherDevice: false)),
      [0x00] + le32(2) + bedsideWire + fixed("F023abc") + [0xc4, 0, 1, 1, 0]
    ),
    (
      .createConnectionChannelResponse(connectionID: 1, error: .noError, status: .disconnected),
      [0x01] + le32(1) + [0, 0]
    ),
    (
      .createConnectionChannelResponse(connectionID: 1, error: .maxPendingConnectionsReached, status: .ready),
      [0x01] + le32(1) + [1, 2]
    ),
    (
      .connectionStatusChanged(connectionID: 4, status: .disconnected, disconnectReason: .timedOut),
      [0x02] + le32(4) + [0, 2]
    ),
    (.connectionChannelRemoved(connectionID: 4, reason: .deletedFromButton), [0x03] + le32(4) + [11]),
    (
      .buttonUpOrDown(ButtonPress(connectionID: 1, clickType: .buttonDown)),
      [0x04] + le32(1) + [0, 0] + le32(0)
    ),
    (
      .buttonClickOrHold(ButtonPress(connectionID: 1, clickType: .buttonHold)),
      [0x05] + le32(1) + [5, 0] + le32(0)
    ),
    (
      .buttonSingleOrDoubleClick(ButtonPress(connectionID: 2, clickType: .buttonDoubleClick)),
      [0x06] + le32(2) + [4, 0] + le32(0)
    ),
    (
      .buttonSingleOrDoubleClickOrHold(
        ButtonPress(connectionID: 3, clickType: .buttonSingleClick, wasQueued: true, timeDiff: 12)),
      [0x07] + le32(3) + [3, 1] + le32(12)
    ),
    (.newVerifiedButton(address: bedside), [0x08] + bedsideWire),
    (
      .getInfoResponse(
        DaemonInfo(
          controllerState: .attached, address: hallway, addressType: .random, maxPendingConnections: 6,
          maxConcurrentlyConnectedButtons: -1, currentPendingConnections: 2, currentlyNoSpace: false,
          verifiedButtons: [bedside, hallway])),
      [0x09, 2] + hallwayWire + [1, 6, 0xff, 0xff, 2, 0] + le16(2) + bedsideWire + hallwayWire
    ),
    (
      .getInfoResponse(
        DaemonInfo(
          controllerState: .detached, address: hallway, addressType: .public, maxPendingConnections: 0,
          maxConcurrentlyConnectedButtons: 10, currentPendingConnections: 0, currentlyNoSpace: true,
          verifiedButtons: [])),
      [0x09, 0] + hallwayWire + [0, 0, 10, 0, 0, 1] + le16(0)
    ),
    (.noSpaceForNewConnection(maxConcurrentlyConnectedButtons: 8), [0x0a, 8]),
    (.gotSpaceForNewConnection(maxConcurrentlyConnectedButtons: 8), [0x0b, 8]),
    (.bluetoothControllerStateChange(state: .resetting), [0x0c, 1]),
    (.pingResponse(pingID: 0xdead_beef), [0x0d, 0xef, 0xbe, 0xad, 0xde]),
    (
      .getButtonInfoResponse(
        ButtonInfo(
          address: bedside, uuid: uuid, color: "white", serialNumber: "AA12-B34567", flicVersion: 2,
          firmwareVersion: 10)),
      [0x0e] + bedsideWire + uuid + fixed("white") + fixed("AA12-B34567") + [2] + le32(10)
    ),
    (.scanWizardFoundPrivateButton(scanWizardID: 3), [0x0f] + le32(3)),
    (
      .scanWizardFoundPublicButton(scanWizardID: 3, address: hallway, name: "F030xyz"),
      [0x10] + le32(3) + hallwayWire + fixed("F030xyz")
    ),
    (.scanWizardButtonConnected(scanWizardID: 3), [0x11] + le32(3)),
    (.scanWizardCompleted(scanWizardID: 3, result: .buttonIsPrivate), [0x12] + le32(3) + [3]),
    (.buttonDeleted(address: bedside, deletedByThisClient: true), [0x13] + bedsideWire + [1]),
    (
      .batteryStatus(listenerID: 6, batteryPercentage: 80, timestamp: 1_700_000_000),
      [0x14] + le32(6) + [80] + le64(1_700_000_000)
    ),
    (.batteryStatus(listenerID: 6, batteryPercentage: -1, timestamp: 0), [0x14] + le32(6) + [0xff] + le64(0)),
  ]

  @Test func lengthValuesMatchTheReferenceTable() {
    let lengths: [UInt8: Int] = [
      0: 33, 1: 7, 2: 7, 3: 6, 4: 11, 5: 11, 6: 11, 7: 11, 8: 7, 10: 2, 11: 2, 12: 2, 13: 5, 14: 62, 15: 5, 16: 28,
      17: 5, 18: 6, 19: 8, 20: 14,
    ]
    for (event, body) in Self.cases {
      let expected: Int
      if case .getInfoResponse(let info) = event {
        expected = 16 + 6 * info.verifiedButtons.count
      } else {
        expected = lengths[event.opcode]!
      }
      #expect(body.count == expected, "\(event)")
    }
  }

  @Test func encodesEveryEvent() {
    for (event, body) in Self.cases {
      #expect(event.encoded() == framed(body), "\(event)")
    }
  }

  @Test func decodesEveryEvent() throws {
    for (event, body) in Self.cases {
      #expect(try EventPacket.decode(body) == event)
    }
  }

  @Test func decodesEveryEventWithExtraTrailingBytes() throws {
    for (event, body) in Self.cases {
      #expect(try EventPacket.decode(body + [0x01, 0x02, 0x03, 0x04, 0x05]) == event)
    }
  }

  @Test func refusesEveryEventTruncatedAtAnyPoint() {
    for (_, body) in Self.cases {
      for length in 1..<body.count {
        #expect(throws: FlicProtocolError.self, "\(body.first!) cut to \(length)") {
          try EventPacket.decode(Array(body.prefix(length)))
        }
      }
    }
  }

  @Test func refusesAnEmptyPacket() {
    #expect(throws: FlicProtocolError.emptyPacket) { try EventPacket.decode([]) }
  }

  @Test func unknownOpcodeIsKept() throws {
    #expect(try EventPacket.decode([0xc8, 9, 9]) == .unknown(opcode: 0xc8, fields: [9, 9]))
  }

  @Test func refusesOutOfRangeEnumsAndStringLengths() {
    #expect(throws: FlicProtocolError.invalidEnum(opcode: 4, field: "click_type", value: 6)) {
      try EventPacket.decode([0x04] + le32(1) + [6, 0] + le32(0))
    }
    var advertisement = Self.cases[0].1
    advertisement[11] = 17  // name_len beyond the 16-byte field
    #expect(throws: FlicProtocolError.stringTooLong(opcode: 0, field: "name", length: 17)) {
      try EventPacket.decode(advertisement)
    }
  }

  @Test func refusesAVerifiedButtonCountTheBytesDoNotHold() {
    let body = [0x09, 2] + hallwayWire + [1, 6, 0xff, 0xff, 2, 0] + le16(0xffff) + bedsideWire
    #expect(throws: FlicProtocolError.self) { try EventPacket.decode(body) }
  }
}
