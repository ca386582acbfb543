/// Every Flic 2 / Duo packet a button sends, without frame header and MAC.
public enum FromButtonMessage: Sendable, Equatable {
  case fullVerifyResponse1(FullVerifyResponse1)
  case fullVerifyResponse2(FullVerifyResponse2)
  case noLogicalConnectionSlots(tmpIDs: [UInt32])
  case fullVerifyFail(reason: UInt8)
  /// The answer to TestIfReallyUnpairedRequest: 16 bytes of HMAC (see `UnpairedCheck`).
  case testIfReallyUnpairedResult([UInt8])
  case firmwareVersion(UInt32)
  case quickVerifyNegative(tmpID: UInt32)
  case quickVerifyResponse(QuickVerifyResponse)
  case disconnectedVerifiedLink(reason: UInt8)
  case initButtonEventsResponse(InitButtonEventsResponse)
  case buttonEvents(ButtonEventNotification)
  case nameUpdated(String)
  case pingRequest
  /// GetNameResponse or SetNameResponse: the name and the UTC ms of its last change (48 bits).
  case name(String, timestampUTCMilliseconds: UInt64, isSetResponse: Bool)
  case batteryLevel(BatteryLevel)
  /// Duo: rotation while a button is held (buttons pressed in bits 0-1, angle in 1/49152 turns).
  case pushTwistData(flags: UInt8, angleDifference: Int32)
  case initButtonEventsDuoResponse(InitButtonEventsDuoResponse)

  public func encoded() -> [UInt8] {
    switch self {
    case .fullVerifyResponse1(let m):
      var w = ByteWriter(opcode: FromButtonOpcode.fullVerifyResponse1.rawValue)
      w.u32(m.tmpID)
      w.append(m.signature.fixedSize(64))
      w.append(m.address.fixedSize(6))
      w.u8(m.addressType)
      w.append(m.publicKey.fixedSize(32))
      w.append(m.buttonRandom.fixedSize(8))
      w.u8(m.flags)
      return w.bytes
    case .fullVerifyResponse2(let m):
      var w = ByteWriter(opcode: FromButtonOpcode.fullVerifyResponse2.rawValue)
      w.u8(m.flags)
      w.append(m.buttonUUID.fixedSize(16))
      let name = ButtonName.truncated(m.name)
      w.u8(UInt8(name.count))
      w.append(name.fixedSize(23))
      w.u32(m.firmwareVersion)
      w.u16(m.batteryLevel)
      w.append(Array(m.serialNumber.utf8).fixedSize(11))
      return w.bytes
    case .noLogicalConnectionSlots(let tmpIDs):
      var w = ByteWriter(opcode: FromButtonOpcode.noLogicalConnectionSlotsInd.rawValue)
      for id in tmpIDs { w.u32(id) }
      return w.bytes
    case .fullVerifyFail(let reason): return [FromButtonOpcode.fullVerifyFailResponse.rawValue, reason]
    case .testIfReallyUnpairedResult(let result):
      return [FromButtonOpcode.testIfReallyUnpairedResponse.rawValue] + result.fixedSize(16)
    case .firmwareVersion(let version):
      var w = ByteWriter(opcode: FromButtonOpcode.getFirmwareVersionResponse.rawValue)
      w.u32(version)
      return w.bytes
    case .quickVerifyNegative(let tmpID):
      var w = ByteWriter(opcode: FromButtonOpcode.quickVerifyNegativeResponse.rawValue)
      w.u32(tmpID)
      return w.bytes
    case .quickVerifyResponse(let m):
      var w = ByteWriter(opcode: FromButtonOpcode.quickVerifyResponse.rawValue)
      w.append(m.buttonRandom.fixedSize(8))
      w.u32(m.tmpID)
      w.u8(m.flags)
      return w.bytes
    case .disconnectedVerifiedLink(let reason): return [FromButtonOpcode.disconnectedVerifiedLinkInd.rawValue, reason]
    case .initButtonEventsResponse(let m):
      var w = ByteWriter(
        opcode: (m.bootID == nil
          ? FromButtonOpcode.initButtonEventsResponseWithoutBootID : .initButtonEventsResponseWithBootID)
          .rawValue)
      w.unsigned((m.hasQueuedEvents ? 1 : 0) | m.timestamp << 1, width: 6)
      w.u32(m.eventCount)
      if let bootID = m.bootID { w.u32(bootID) }
      return w.bytes
    case .buttonEvents(let m):
      var w = ByteWriter(opcode: FromButtonOpcode.buttonEventNotification.rawValue)
      w.u32(m.pressCounter)
      for item in m.items {
        w.unsigned(item.timestamp, width: 6)
        w.u8(item.code.rawValue | (item.wasQueued ? 0x10 : 0) | (item.wasQueuedLast ? 0x20 : 0))
      }
      return w.bytes
    case .nameUpdated(let name): return [FromButtonOpcode.nameUpdatedNotification.rawValue] + ButtonName.truncated(name)
    case .pingRequest: return [FromButtonOpcode.pingRequest.rawValue]
    case .name(let name, let timestamp, let isSet):
      var w = ByteWriter(opcode: (isSet ? FromButtonOpcode.setNameResponse : .getNameResponse).rawValue)
      w.unsigned(timestamp, width: 6)
      w.append(ButtonName.truncated(name))
      return w.bytes
    case .batteryLevel(let level):
      var w = ByteWriter(opcode: FromButtonOpcode.getBatteryLevelResponse.rawValue)
      w.u16(level.raw)
      return w.bytes
    case .initButtonEventsDuoResponse(let m):
      var w = ByteWriter(
        opcode: (m.bootID == nil
          ? FromButtonOpcode.initButtonEventsDuoResponseWithoutBootID : .initButtonEventsDuoResponseWithBootID)
          .rawValue)
      w.unsigned((m.hasQueuedEvents ? 1 : 0) | m.timestamp << 1, width: 6)
      w.u32(m.eventCounts.0)
      w.u32(m.eventCounts.1)
      if let bootID = m.bootID { w.u32(bootID) }
      return w.bytes
    case .pushTwistData(let flags, let angle):
      var w = ByteWriter(opcode: FromButtonOpcode.pushTwistDataNotification.rawValue)
      w.u8(flags)
      w.i32(angle)
      return w.bytes
    }
  }

  /// Decodes a packet from a button (MAC already checked and removed). Extra bytes at the end are
  /// ignored as the specification asks; missing ones throw.
  public static func decode(_ packet: [UInt8]) throws(FlicBLEError) -> FromButtonMessage {
    guard let first = packet.first else { throw .emptyPacket }
    guard let opcode = FromButtonOpcode(rawValue: first) else { throw .unknownOpcode(first) }
    var r = ByteReader(packet)
    switch opcode {
    case .fullVerifyResponse1:
      return .fullVerifyResponse1(
        FullVerifyResponse1(
          tmpID: try r.u32(), signature: try r.take(64), address: try r.take(6), addressType: try r.u8(),
          publicKey: try r.take(32), buttonRandom: try r.take(8), flags: try r.u8()))
    case .fullVerifyResponse2:
      let flags = try r.u8()
      let uuid = try r.take(16)
      let nameLength = Int(try r.u8())
      let nameField = try r.take(23)
      guard nameLength <= ButtonName.maximumBytes else {
        throw .invalidField(opcode: first, field: "name length", value: nameLength)
      }
      let firmware = try r.u32()
      let battery = try r.u16()
      let serial = try r.take(11)
      return .fullVerifyResponse2(
        FullVerifyResponse2(
          flags: flags, buttonUUID: uuid, name: String(decoding: nameField.prefix(nameLength), as: UTF8.self),
          firmwareVersion: firmware, batteryLevel: battery,
          serialNumber: String(decoding: serial.prefix { $0 != 0 }, as: UTF8.self)))
    case .noLogicalConnectionSlotsInd:
      var ids: [UInt32] = []
      while r.remaining >= 4 { ids.append(try r.u32()) }
      return .noLogicalConnectionSlots(tmpIDs: ids)
    case .fullVerifyFailResponse: return .fullVerifyFail(reason: try r.u8())
    case .testIfReallyUnpairedResponse: return .testIfReallyUnpairedResult(try r.take(16))
    case .getFirmwareVersionResponse: return .firmwareVersion(try r.u32())
    case .quickVerifyNegativeResponse: return .quickVerifyNegative(tmpID: try r.u32())
    case .quickVerifyResponse:
      return .quickVerifyResponse(
        QuickVerifyResponse(buttonRandom: try r.take(8), tmpID: try r.u32(), flags: try r.u8()))
    case .disconnectedVerifiedLinkInd: return .disconnectedVerifiedLink(reason: try r.u8())
    case .initButtonEventsResponseWithBootID, .initButtonEventsResponseWithoutBootID:
      let packed = try r.unsigned(width: 6)
      let count = try r.u32()
      let bootID = opcode == .initButtonEventsResponseWithBootID ? try r.u32() : nil
      return .initButtonEventsResponse(
        InitButtonEventsResponse(
          hasQueuedEvents: packed & 1 != 0, timestamp: packed >> 1, eventCount: count, bootID: bootID))
    case .buttonEventNotification:
      let counter = try r.u32()
      guard r.remaining >= 7 else { throw .packetTooShort(opcode: first, length: packet.count, needed: 12) }
      var items: [ButtonEventItem] = []
      while r.remaining >= 7 {
        let timestamp = try r.unsigned(width: 6)
        let flags = try r.u8()
        items.append(
          ButtonEventItem(
            timestamp: timestamp, code: ButtonEventCode(rawValue: flags & 0x0F)!, wasQueued: flags & 0x10 != 0,
            wasQueuedLast: flags & 0x20 != 0))
      }
      return .buttonEvents(ButtonEventNotification(pressCounter: counter, items: items))
    case .nameUpdatedNotification: return .nameUpdated(try ButtonName.decode(r.rest(), opcode: first))
    case .pingRequest: return .pingRequest
    case .getNameResponse, .setNameResponse:
      let stamp = try r.unsigned(width: 6)
      return .name(
        try ButtonName.decode(r.rest(), opcode: first), timestampUTCMilliseconds: stamp,
        isSetResponse: opcode == .setNameResponse)
    case .getBatteryLevelResponse: return .batteryLevel(BatteryLevel(raw: try r.u16()))
    case .pushTwistDataNotification: return .pushTwistData(flags: try r.u8(), angleDifference: try r.i32())
    case .initButtonEventsDuoResponseWithBootID, .initButtonEventsDuoResponseWithoutBootID:
      let packed = try r.unsigned(width: 6)
      let counts = (try r.u32(), try r.u32())
      let bootID = opcode == .initButtonEventsDuoResponseWithBootID ? try r.u32() : nil
      return .initButtonEventsDuoResponse(
        InitButtonEventsDuoResponse(
          hasQueuedEvents: packed & 1 != 0, timestamp: packed >> 1, eventCounts: counts, bootID: bootID))
    case .pairingFinishedInd, .buttonEventDuoNotification:
      // Duo events need the running decoder state (`DuoEventDecoder`), not a stateless decode.
      throw .unknownOpcode(first)
    }
  }
}

/// A battery reading as Flic 2 / Duo send it: a 10-bit ADC value of a 3.6 V reference.
public struct BatteryLevel: Sendable, Equatable {
  public let raw: UInt16

  public init(raw: UInt16) { self.raw = raw }

  /// The raw value nearest to a voltage, for simulators.
  public init(millivolts: UInt16) { raw = UInt16((UInt32(millivolts) * 1024 + 1800) / 3600) }

  /// Rounded as Shortcut Labs' C module does.
  public var millivolts: UInt16 { UInt16((UInt32(raw) * 3600 + 512) / 1024) }
}
