/// Every Flic 2 / Duo packet a central sends, without frame header and MAC.
public enum ToButtonMessage: Sendable, Equatable {
  case fullVerifyRequest1(tmpID: UInt32)
  case fullVerifyRequest2(FullVerifyRequest2)
  case fullVerifyAbort
  case quickVerifyRequest(QuickVerifyRequest)
  /// After a refused quick verify: proves the refusal is real (see `UnpairedCheck`).
  case testIfReallyUnpaired(publicKey: [UInt8], clientRandom: [UInt8], pairingID: UInt32, pairingToken: [UInt8])
  /// `light` selects opcode 23 (what current centrals send) instead of 15; the fields are the same.
  case initButtonEvents(InitButtonEventsRequest, light: Bool)
  case ackButtonEvents(eventCount: UInt32)
  case getFirmwareVersion
  case getBatteryLevel
  case getName
  /// A new name (at most 23 bytes of UTF-8) stamped with the UTC time of the change in ms (47 bits);
  /// `force` overrides a newer name on the button.
  case setName(name: String, timestampUTCMilliseconds: UInt64, force: Bool)
  case setConnectionParameters(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16)
  case setAutoDisconnectTime(seconds: UInt16)
  case pingResponse
  case forceBtDisconnect(restartAdvertising: Bool)
  case disconnectVerifiedLink
  /// Duo: one event count per button.
  case initButtonEventsDuo(eventCounts: (UInt32, UInt32), bootID: UInt32, limits: InitButtonEventsRequest)
  case enablePushTwist(button0: Bool, button1: Bool)

  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.encoded() == rhs.encoded() }

  public var opcode: UInt8 { encoded()[0] }

  public func encoded() -> [UInt8] {
    switch self {
    case .fullVerifyRequest1(let tmpID):
      var w = ByteWriter(opcode: ToButtonOpcode.fullVerifyRequest1.rawValue)
      w.u32(tmpID)
      return w.bytes
    case .fullVerifyRequest2(let request):
      var w = ByteWriter(opcode: ToButtonOpcode.fullVerifyRequest2.rawValue)
      w.append(request.publicKey.fixedSize(32))
      w.append(request.clientRandom.fixedSize(8))
      w.u8(request.flags)
      w.append(request.verifier.fixedSize(16))
      return w.bytes
    case .fullVerifyAbort: return [ToButtonOpcode.fullVerifyAbortInd.rawValue]
    case .quickVerifyRequest(let request):
      var w = ByteWriter(opcode: ToButtonOpcode.quickVerifyRequest.rawValue)
      w.append(request.clientRandom.fixedSize(7))
      w.u8(request.flags)
      w.u32(request.tmpID)
      w.u32(request.pairingID)
      return w.bytes
    case .testIfReallyUnpaired(let publicKey, let clientRandom, let pairingID, let token):
      var w = ByteWriter(opcode: ToButtonOpcode.testIfReallyUnpairedRequest.rawValue)
      w.append(publicKey.fixedSize(32))
      w.append(clientRandom.fixedSize(8))
      w.u32(pairingID)
      w.append(token.fixedSize(16))
      return w.bytes
    case .initButtonEvents(let request, let light):
      var w = ByteWriter(
        opcode: (light ? ToButtonOpcode.initButtonEventsLightRequest : .initButtonEventsRequest).rawValue)
      w.u32(request.eventCount)
      w.u32(request.bootID)
      w.unsigned(request.packedLimits, width: 5)
      return w.bytes
    case .ackButtonEvents(let eventCount):
      var w = ByteWriter(opcode: ToButtonOpcode.ackButtonEventsInd.rawValue)
      w.u32(eventCount)
      return w.bytes
    case .getFirmwareVersion: return [ToButtonOpcode.getFirmwareVersionRequest.rawValue]
    case .getBatteryLevel: return [ToButtonOpcode.getBatteryLevelRequest.rawValue]
    case .getName: return [ToButtonOpcode.getNameRequest.rawValue]
    case .setName(let name, let timestamp, let force):
      var w = ByteWriter(opcode: ToButtonOpcode.setNameRequest.rawValue)
      w.unsigned((timestamp & 0x7FFF_FFFF_FFFF) | (force ? 1 << 47 : 0), width: 6)
      w.append(ButtonName.truncated(name))
      return w.bytes
    case .setConnectionParameters(let intervalMin, let intervalMax, let latency, let timeout):
      var w = ByteWriter(opcode: ToButtonOpcode.setConnectionParametersInd.rawValue)
      for value in [intervalMin, intervalMax, latency, timeout] { w.u16(value) }
      return w.bytes
    case .setAutoDisconnectTime(let seconds):
      var w = ByteWriter(opcode: ToButtonOpcode.setAutoDisconnectTimeInd.rawValue)
      w.u16(Swift.min(seconds, 511))
      return w.bytes
    case .pingResponse: return [ToButtonOpcode.pingResponse.rawValue]
    case .forceBtDisconnect(let restart): return [ToButtonOpcode.forceBtDisconnectInd.rawValue, restart ? 1 : 0]
    case .disconnectVerifiedLink: return [ToButtonOpcode.disconnectVerifiedLinkInd.rawValue]
    case .initButtonEventsDuo(let counts, let bootID, let limits):
      var w = ByteWriter(opcode: ToButtonOpcode.initButtonEventsDuoRequest.rawValue)
      w.u32(counts.0)
      w.u32(counts.1)
      w.u32(bootID)
      w.unsigned(limits.packedLimits, width: 5)
      return w.bytes
    case .enablePushTwist(let button0, let button1):
      return [ToButtonOpcode.enablePushTwistInd.rawValue, (button0 ? 1 : 0) | (button1 ? 2 : 0)]
    }
  }

  /// Decodes a packet from a central (the simulator's side). Longer packets than the fields need
  /// are accepted (the protocol grows at the end); shorter ones throw.
  public static func decode(_ packet: [UInt8]) throws(FlicBLEError) -> ToButtonMessage {
    guard let first = packet.first else { throw .emptyPacket }
    guard let opcode = ToButtonOpcode(rawValue: first) else { throw .unknownOpcode(first) }
    var r = ByteReader(packet)
    switch opcode {
    case .fullVerifyRequest1: return .fullVerifyRequest1(tmpID: try r.u32())
    case .fullVerifyRequest2:
      return .fullVerifyRequest2(
        FullVerifyRequest2(
          publicKey: try r.take(32), clientRandom: try r.take(8), flags: try r.u8(), verifier: try r.take(16)))
    case .fullVerifyAbortInd: return .fullVerifyAbort
    case .quickVerifyRequest:
      return .quickVerifyRequest(
        QuickVerifyRequest(clientRandom: try r.take(7), flags: try r.u8(), tmpID: try r.u32(), pairingID: try r.u32()))
    case .initButtonEventsRequest, .initButtonEventsLightRequest:
      let request = InitButtonEventsRequest(
        eventCount: try r.u32(), bootID: try r.u32(), packedLimits: try r.unsigned(width: 5))
      return .initButtonEvents(request, light: opcode == .initButtonEventsLightRequest)
    case .ackButtonEventsInd: return .ackButtonEvents(eventCount: try r.u32())
    case .getFirmwareVersionRequest: return .getFirmwareVersion
    case .getBatteryLevelRequest: return .getBatteryLevel
    case .getNameRequest: return .getName
    case .setNameRequest:
      let stamp = try r.unsigned(width: 6)
      let name = try ButtonName.decode(r.rest(), opcode: first)
      return .setName(name: name, timestampUTCMilliseconds: stamp & 0x7FFF_FFFF_FFFF, force: stamp >> 47 != 0)
    case .setConnectionParametersInd:
      return .setConnectionParameters(
        intervalMin: try r.u16(), intervalMax: try r.u16(), latency: try r.u16(), timeout: try r.u16())
    case .setAutoDisconnectTimeInd: return .setAutoDisconnectTime(seconds: try r.u16() & 0x1FF)
    case .pingResponse: return .pingResponse
    case .forceBtDisconnectInd: return .forceBtDisconnect(restartAdvertising: try r.u8() != 0)
    case .disconnectVerifiedLinkInd: return .disconnectVerifiedLink
    case .initButtonEventsDuoRequest:
      let counts = (try r.u32(), try r.u32())
      let bootID = try r.u32()
      let limits = InitButtonEventsRequest(eventCount: 0, bootID: bootID, packedLimits: try r.unsigned(width: 5))
      return .initButtonEventsDuo(eventCounts: counts, bootID: bootID, limits: limits)
    case .enablePushTwistInd:
      let bits = try r.u8()
      return .enablePushTwist(button0: bits & 1 != 0, button1: bits & 2 != 0)
    case .testIfReallyUnpairedRequest:
      return .testIfReallyUnpaired(
        publicKey: try r.take(32), clientRandom: try r.take(8), pairingID: try r.u32(), pairingToken: try r.take(16))
    case .fullVerifyRequest2WithAppToken: throw .unknownOpcode(first)
    }
  }
}

/// A button's name: at most 23 bytes of UTF-8, cut at a character boundary.
public enum ButtonName {
  public static let maximumBytes = 23

  public static func truncated(_ name: String) -> [UInt8] {
    var bytes: [UInt8] = []
    for character in name {
      let utf8 = Array(String(character).utf8)
      guard bytes.count + utf8.count <= maximumBytes else { break }
      bytes += utf8
    }
    return bytes
  }

  static func decode(_ bytes: [UInt8], opcode: UInt8) throws(FlicBLEError) -> String {
    guard bytes.count <= maximumBytes else {
      throw .invalidField(opcode: opcode, field: "name length", value: bytes.count)
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
