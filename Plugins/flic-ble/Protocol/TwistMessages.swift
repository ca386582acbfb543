/// Flic Twist: a dial with 12 slots (each with its own position) and a 13th, slot-changing mode.
/// Positions are in units of 1/49152 turn (4096 per slot-sized twelfth). Packets have no frame
/// header; the MAC covers the whole packet. Layouts as pyflic-ble implements them.
public enum TwistDial {
  /// One full turn of the dial.
  public static let unitsPerTurn: Int32 = 49152
  public static let unitsPerSlot: Int32 = 4096
  public static let slotCount = 12
  /// Mode index 12: turning the dial selects the active slot.
  public static let slotChangingMode: UInt8 = 12
}

/// The per-mode configuration sent in InitButtonEventsTwistRequest (5 bytes each, 13 modes).
public struct TwistModeConfig: Sendable, Equatable {
  /// LED behaviour (6 bits): pyflic-ble uses 1 by default, 2 for continuous, 3 for the selector.
  public var ledMode: UInt8
  public var hasClick: Bool
  public var hasDoubleClick: Bool
  public var extraLedsAfter: UInt8
  /// The mode's current position (0...49152).
  public var position: UInt16
  /// Seconds before the mode falls back (255 = never).
  public var timeoutSeconds: UInt8

  public init(
    ledMode: UInt8 = 1, hasClick: Bool = false, hasDoubleClick: Bool = false, extraLedsAfter: UInt8 = 0,
    position: UInt16 = 0, timeoutSeconds: UInt8 = 0
  ) {
    self.ledMode = ledMode & 0x3F
    self.hasClick = hasClick
    self.hasDoubleClick = hasDoubleClick
    self.extraLedsAfter = extraLedsAfter & 0x0F
    self.position = position
    self.timeoutSeconds = timeoutSeconds
  }

  var packed: UInt32 {
    UInt32(ledMode) | (hasClick ? 1 << 6 : 0) | (hasDoubleClick ? 1 << 7 : 0) | UInt32(extraLedsAfter) << 8
      | UInt32(position) << 16
  }

  init(packed: UInt32, timeoutSeconds: UInt8) {
    self.init(
      ledMode: UInt8(packed & 0x3F), hasClick: packed & 0x40 != 0, hasDoubleClick: packed & 0x80 != 0,
      extraLedsAfter: UInt8((packed >> 8) & 0x0F), position: UInt16(packed >> 16), timeoutSeconds: timeoutSeconds)
  }
}

/// Twist packets from the central that differ from Flic 2 (verify requests share Flic 2's layout
/// under the Twist opcode table).
public enum TwistToButtonMessage: Sendable, Equatable {
  /// Event count, the 13 mode configurations, boot id, API version (2).
  case initButtonEvents(eventCount: UInt32, modes: [TwistModeConfig], bootID: UInt32, apiVersion: UInt8)
  case ackButtonEvents(eventCount: UInt32)
  /// Resynchronises a mode's position: new minimum (48-bit signed) and update packets received.
  case updateTwistPosition(modeIndex: UInt8, newMinimum: Int64, receivedUpdatePackets: UInt32)
  case getBatteryLevel
  case getFirmwareVersion
  case getName
  /// The Twist's name request: the UTC ms shifted up by one with "force" in bit 0 (pyflic-ble's
  /// layout; a Flic 2 has force in bit 47 instead).
  case setName(String, timestampUTCMilliseconds: UInt64, force: Bool)

  public func encoded() -> [UInt8] {
    switch self {
    case .getBatteryLevel: return [TwistToButtonOpcode.getBatteryLevelRequest.rawValue]
    case .getFirmwareVersion: return [TwistToButtonOpcode.getFirmwareVersionRequest.rawValue]
    case .getName: return [TwistToButtonOpcode.getNameRequest.rawValue]
    case .setName(let name, let timestamp, let force):
      var w = ByteWriter(opcode: TwistToButtonOpcode.setNameRequest.rawValue)
      w.unsigned((timestamp & 0x7FFF_FFFF_FFFF) << 1 | (force ? 1 : 0), width: 6)
      w.append(ButtonName.truncated(name))
      return w.bytes
    case .initButtonEvents(let eventCount, let modes, let bootID, let apiVersion):
      var w = ByteWriter(opcode: TwistToButtonOpcode.initButtonEventsRequest.rawValue)
      w.u32(eventCount)
      for index in 0..<13 {
        let mode = index < modes.count ? modes[index] : TwistModeConfig()
        w.u32(mode.packed)
        w.u8(mode.timeoutSeconds)
      }
      w.u32(bootID)
      w.u8(apiVersion)
      return w.bytes
    case .ackButtonEvents(let count):
      var w = ByteWriter(opcode: TwistToButtonOpcode.ackButtonEventsInd.rawValue)
      w.u32(count)
      return w.bytes
    case .updateTwistPosition(let mode, let minimum, let received):
      var w = ByteWriter(opcode: TwistToButtonOpcode.updateTwistPositionRequest.rawValue)
      w.u8(mode)
      w.unsigned(UInt64(bitPattern: minimum), width: 6)
      w.u32(received)
      return w.bytes
    }
  }

  public static func decode(_ packet: [UInt8]) throws(FlicBLEError) -> TwistToButtonMessage {
    guard let first = packet.first else { throw .emptyPacket }
    var r = ByteReader(packet)
    switch TwistToButtonOpcode(rawValue: first) {
    case .initButtonEventsRequest:
      let count = try r.u32()
      var modes: [TwistModeConfig] = []
      for _ in 0..<13 {
        let packed = try r.u32()
        modes.append(TwistModeConfig(packed: packed, timeoutSeconds: try r.u8()))
      }
      return .initButtonEvents(eventCount: count, modes: modes, bootID: try r.u32(), apiVersion: try r.u8())
    case .ackButtonEventsInd: return .ackButtonEvents(eventCount: try r.u32())
    case .updateTwistPositionRequest:
      let mode = try r.u8()
      let raw = try r.unsigned(width: 6)
      let minimum = Int64(bitPattern: raw << 16) >> 16
      return .updateTwistPosition(modeIndex: mode, newMinimum: minimum, receivedUpdatePackets: try r.u32())
    case .getBatteryLevelRequest: return .getBatteryLevel
    case .getFirmwareVersionRequest: return .getFirmwareVersion
    case .getNameRequest: return .getName
    case .setNameRequest:
      let packed = try r.unsigned(width: 6)
      let name = try ButtonName.decode(r.rest(), opcode: first)
      return .setName(name, timestampUTCMilliseconds: packed >> 1, force: packed & 1 != 0)
    default: throw .unknownOpcode(first)
    }
  }
}

/// Twist packets from the button that differ from Flic 2. (The central's verify requests have
/// Flic 2's layouts and opcodes 0, 2 and 5: `ToButtonMessage` encodes them.)
public enum TwistFromButtonMessage: Sendable, Equatable {
  /// Flic 2's FullVerifyResponse1 without the final flags byte (116 bytes).
  case fullVerifyResponse1(FullVerifyResponse1)
  /// Flic 2's FullVerifyResponse2 followed by the colour name (16 bytes, NUL-padded).
  case fullVerifyResponse2(FullVerifyResponse2, color: String)
  /// Like Flic 2's, always with the boot id, and with the API version at the end.
  case initButtonEventsResponse(InitButtonEventsResponse, apiVersion: UInt8)
  /// Like Flic 2's items, 8 bytes each: the mode index (4 bits) follows the queued flags.
  case buttonEvents(pressCounter: UInt32, items: [TwistButtonEventItem])
  case twistEvent(TwistRotation)
  case quickVerifyResponse(buttonRandom: [UInt8], tmpID: UInt32)
  /// The stored pairing is unknown to the button (as Flic 2's, under the Twist's opcode).
  case quickVerifyNegative(tmpID: UInt32)
  case fullVerifyFail(reason: UInt8)
  /// The Twist reports its two AAA cells in millivolts (a Flic 2 sends a 10-bit ADC reading).
  case batteryMillivolts(UInt16)
  case firmwareVersion(UInt32)
  /// GetNameResponse or SetNameResponse: the name and the UTC ms of its last change.
  case name(String, timestampUTCMilliseconds: UInt64, isSetResponse: Bool)
  case disconnectedVerifiedLink(reason: UInt8)

  public func encoded() -> [UInt8] {
    switch self {
    case .fullVerifyResponse1(let m):
      // 117 bytes like Flic 2's, flags included: pyflic-ble's Twist handler refuses fewer.
      return FromButtonMessage.fullVerifyResponse1(m).encoded()
    case .quickVerifyNegative(let tmpID):
      var w = ByteWriter(opcode: TwistFromButtonOpcode.quickVerifyNegativeResponse.rawValue)
      w.u32(tmpID)
      return w.bytes
    case .fullVerifyFail(let reason): return [TwistFromButtonOpcode.fullVerifyFailResponse.rawValue, reason]
    case .batteryMillivolts(let millivolts):
      var w = ByteWriter(opcode: TwistFromButtonOpcode.getBatteryLevelResponse.rawValue)
      w.u16(millivolts)
      return w.bytes
    case .firmwareVersion(let version):
      var w = ByteWriter(opcode: TwistFromButtonOpcode.getFirmwareVersionResponse.rawValue)
      w.u32(version)
      return w.bytes
    case .name(let name, let timestamp, let isSet):
      var w = ByteWriter(
        opcode: (isSet ? TwistFromButtonOpcode.setNameResponse : .getNameResponse).rawValue)
      w.unsigned(timestamp, width: 6)
      w.append(ButtonName.truncated(name))
      return w.bytes
    case .disconnectedVerifiedLink(let reason):
      return [TwistFromButtonOpcode.disconnectedVerifiedLinkInd.rawValue, reason]
    case .fullVerifyResponse2(let m, let color):
      var bytes = FromButtonMessage.fullVerifyResponse2(m).encoded()
      bytes[0] = TwistFromButtonOpcode.fullVerifyResponse2.rawValue
      return bytes + Array(color.utf8).fixedSize(16)
    case .initButtonEventsResponse(let m, let apiVersion):
      var w = ByteWriter(opcode: TwistFromButtonOpcode.initButtonEventsResponse.rawValue)
      w.unsigned((m.hasQueuedEvents ? 1 : 0) | m.timestamp << 1, width: 6)
      w.u32(m.eventCount)
      w.u32(m.bootID ?? 0)
      w.u8(apiVersion)
      return w.bytes
    case .buttonEvents(let counter, let items):
      var w = ByteWriter(opcode: TwistFromButtonOpcode.buttonEventNotification.rawValue)
      w.u32(counter)
      for item in items {
        let flags =
          UInt64(item.event.code.rawValue) | (item.event.wasQueued ? 0x10 : 0) | (item.event.wasQueuedLast ? 0x20 : 0)
          | UInt64(item.modeIndex & 0x0F) << 6
        w.unsigned(item.event.timestamp | flags << 48, width: 8)
      }
      return w.bytes
    case .twistEvent(let rotation):
      var w = ByteWriter(opcode: TwistFromButtonOpcode.twistEventNotification.rawValue)
      w.u8(
        rotation.modeIndex & 0x0F | (rotation.lastMinimumUpdateWasTop ? 0x10 : 0)
          | (rotation.lastHubUpdatePacketTooOld ? 0x20 : 0))
      for value in [rotation.totalDelta, rotation.minimumDelta, rotation.maximumDelta] {
        w.unsigned(UInt64(UInt32(bitPattern: value)), width: 3)
      }
      w.u16(rotation.lastHubPacketCounter)
      return w.bytes
    case .quickVerifyResponse(let random, let tmpID):
      var w = ByteWriter(opcode: TwistFromButtonOpcode.quickVerifyResponse.rawValue)
      w.append(random.fixedSize(8))
      w.u32(tmpID)
      return w.bytes
    }
  }

  public static func decode(_ packet: [UInt8]) throws(FlicBLEError) -> TwistFromButtonMessage {
    guard let first = packet.first else { throw .emptyPacket }
    var r = ByteReader(packet)
    switch TwistFromButtonOpcode(rawValue: first) {
    case .fullVerifyResponse1:
      guard packet.count >= 116 else { throw .packetTooShort(opcode: first, length: packet.count, needed: 116) }
      let flags: [UInt8] = packet.count > 116 ? [packet[116]] : [0]
      guard case .fullVerifyResponse1(let m) = try FromButtonMessage.decode(Array(packet.prefix(116)) + flags) else {
        throw .unknownOpcode(first)
      }
      return .fullVerifyResponse1(m)
    case .fullVerifyResponse2:
      guard packet.count >= 75 else { throw .packetTooShort(opcode: first, length: packet.count, needed: 75) }
      guard
        case .fullVerifyResponse2(let m) = try FromButtonMessage.decode(
          [FromButtonOpcode.fullVerifyResponse2.rawValue] + packet[1..<59])
      else { throw .unknownOpcode(first) }
      return .fullVerifyResponse2(m, color: String(decoding: packet[59..<75].prefix { $0 != 0 }, as: UTF8.self))
    case .initButtonEventsResponse:
      let packed = try r.unsigned(width: 6)
      let count = try r.u32()
      let bootID = try r.u32()
      let response = InitButtonEventsResponse(
        hasQueuedEvents: packed & 1 != 0, timestamp: packed >> 1, eventCount: count, bootID: bootID)
      return .initButtonEventsResponse(response, apiVersion: try r.u8())
    case .buttonEventNotification:
      let counter = try r.u32()
      var items: [TwistButtonEventItem] = []
      while r.remaining >= 8 {
        let raw = try r.unsigned(width: 8)
        let flags = raw >> 48
        let event = ButtonEventItem(
          timestamp: raw & 0xFFFF_FFFF_FFFF, code: ButtonEventCode(rawValue: UInt8(flags & 0x0F))!,
          wasQueued: flags & 0x10 != 0, wasQueuedLast: flags & 0x20 != 0)
        items.append(TwistButtonEventItem(event: event, modeIndex: UInt8((flags >> 6) & 0x0F)))
      }
      return .buttonEvents(pressCounter: counter, items: items)
    case .twistEventNotification:
      let flags = try r.u8()
      func signed24() throws(FlicBLEError) -> Int32 { Int32(bitPattern: UInt32(try r.unsigned(width: 3)) << 8) >> 8 }
      let total = try signed24()
      let minimum = try signed24()
      let maximum = try signed24()
      return .twistEvent(
        TwistRotation(
          modeIndex: flags & 0x0F, totalDelta: total, minimumDelta: minimum, maximumDelta: maximum,
          lastHubPacketCounter: try r.u16(), lastMinimumUpdateWasTop: flags & 0x10 != 0,
          lastHubUpdatePacketTooOld: flags & 0x20 != 0))
    case .quickVerifyResponse:
      return .quickVerifyResponse(buttonRandom: try r.take(8), tmpID: try r.u32())
    case .quickVerifyNegativeResponse: return .quickVerifyNegative(tmpID: try r.u32())
    case .fullVerifyFailResponse: return .fullVerifyFail(reason: try r.u8())
    case .getBatteryLevelResponse: return .batteryMillivolts(try r.u16())
    case .getFirmwareVersionResponse: return .firmwareVersion(try r.u32())
    case .getNameResponse, .setNameResponse:
      let stamp = try r.unsigned(width: 6)
      return .name(
        try ButtonName.decode(r.rest(), opcode: first), timestampUTCMilliseconds: stamp,
        isSetResponse: first == TwistFromButtonOpcode.setNameResponse.rawValue)
    case .disconnectedVerifiedLinkInd: return .disconnectedVerifiedLink(reason: try r.u8())
    default: throw .unknownOpcode(first)
    }
  }
}

/// A Twist button event and the mode (0...12) the dial was in.
public struct TwistButtonEventItem: Sendable, Equatable {
  public var event: ButtonEventItem
  public var modeIndex: UInt8

  public init(event: ButtonEventItem, modeIndex: UInt8) {
    self.event = event
    self.modeIndex = modeIndex
  }
}

/// A Twist rotation report: deltas in 1/49152 turn (24-bit signed on the air).
public struct TwistRotation: Sendable, Equatable {
  public var modeIndex: UInt8
  public var totalDelta: Int32
  public var minimumDelta: Int32
  public var maximumDelta: Int32
  public var lastHubPacketCounter: UInt16
  public var lastMinimumUpdateWasTop: Bool
  public var lastHubUpdatePacketTooOld: Bool

  public init(
    modeIndex: UInt8, totalDelta: Int32, minimumDelta: Int32, maximumDelta: Int32, lastHubPacketCounter: UInt16,
    lastMinimumUpdateWasTop: Bool = false, lastHubUpdatePacketTooOld: Bool = false
  ) {
    self.modeIndex = modeIndex
    self.totalDelta = totalDelta
    self.minimumDelta = minimumDelta
    self.maximumDelta = maximumDelta
    self.lastHubPacketCounter = lastHubPacketCounter
    self.lastMinimumUpdateWasTop = lastMinimumUpdateWasTop
    self.lastHubUpdatePacketTooOld = lastHubUpdatePacketTooOld
  }

  /// Turns of the dial this report moved.
  public var turns: Double { Double(totalDelta) / Double(TwistDial.unitsPerTurn) }
}
