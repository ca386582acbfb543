import FlicProtocol
import Testing

@Suite struct CommandPacketTests {
  @Test func workedExampleFromTheProtocolDocumentation() {
    let command = CommandPacket.createConnectionChannel(
      connectionID: 1, address: bedside, latencyMode: .normal, autoDisconnectTime: 511)
    #expect(command.encoded() == hex("0e 00 03 01 00 00 00 8e b6 71 da e4 80 00 ff 01"))
  }

  /// Every command with its expected bytes, built by hand from the reference table.
  static let cases: [(CommandPacket, [UInt8])] = [
    (.getInfo, [0x00]),
    (.createScanner(scanID: 7), [0x01] + le32(7)),
    (.removeScanner(scanID: 0x0102_0304), [0x02] + hex("04 03 02 01")),
    (
      .createConnectionChannel(connectionID: 9, address: hallway, latencyMode: .low, autoDisconnectTime: 30),
      [0x03] + le32(9) + hallwayWire + [0x01] + le16(30)
    ),
    (.removeConnectionChannel(connectionID: 9), [0x04] + le32(9)),
    (.forceDisconnect(address: bedside), [0x05] + bedsideWire),
    (
      .changeModeParameters(connectionID: 3, latencyMode: .high, autoDisconnectTime: -1),
      [0x06] + le32(3) + [0x02, 0xff, 0xff]
    ),
    (.ping(pingID: 42), [0x07] + le32(42)),
    (.getButtonInfo(address: bedside), [0x08] + bedsideWire),
    (.createScanWizard(scanWizardID: 5), [0x09] + le32(5)),
    (.cancelScanWizard(scanWizardID: 5), [0x0a] + le32(5)),
    (.deleteButton(address: hallway), [0x0b] + hallwayWire),
    (.createBatteryStatusListener(listenerID: 11, address: bedside), [0x0c] + le32(11) + bedsideWire),
    (.removeBatteryStatusListener(listenerID: 11), [0x0d] + le32(11)),
  ]

  @Test func encodesEveryCommand() {
    for (command, body) in Self.cases {
      #expect(command.encoded() == framed(body), "\(command)")
    }
  }

  @Test func lengthValuesMatchTheReferenceTable() {
    let lengths: [UInt8: Int] = [
      0: 1, 1: 5, 2: 5, 3: 14, 4: 5, 5: 7, 6: 8, 7: 5, 8: 7, 9: 5, 10: 5, 11: 7, 12: 11, 13: 5,
    ]
    for (command, _) in Self.cases {
      let bytes = command.encoded()
      #expect(Int(bytes[0]) | Int(bytes[1]) << 8 == lengths[command.opcode], "\(command)")
    }
  }

  @Test func decodesEveryCommandIgnoringTrailingBytes() throws {
    for (command, body) in Self.cases {
      #expect(try CommandPacket.decode(body) == command)
      #expect(try CommandPacket.decode(body + [0xaa, 0xbb]) == command)
    }
  }

  @Test func refusesTruncatedCommands() {
    for (_, body) in Self.cases where body.count > 1 {
      #expect(throws: FlicProtocolError.self) { try CommandPacket.decode(Array(body.dropLast())) }
    }
  }

  @Test func unknownOpcodeIsKept() throws {
    #expect(try CommandPacket.decode([0x63, 1, 2]) == .unknown(opcode: 0x63, fields: [1, 2]))
  }

  @Test func refusesAnInvalidLatencyMode() {
    let body = [0x03] + le32(1) + bedsideWire + [0x07] + le16(511)
    #expect(throws: FlicProtocolError.invalidEnum(opcode: 3, field: "latency_mode", value: 7)) {
      try CommandPacket.decode(body)
    }
  }
}
