import Crypto
import FlicBLEProtocol

/// A simulated Twist's dial: what the central configured per mode, where each mode's position
/// is, the active slot, and whether the button is held (turning then moves mode 12).
struct TwistDialState: Sendable {
  var modes = Array(repeating: TwistModeConfig(), count: TwistPositionTracker.modeCount)
  /// Bounded to one turn, as the Twist's LEDs show it.
  var positions = Array(repeating: Int32(0), count: TwistPositionTracker.modeCount)
  var activeSlot = 0
  var pushed = false
  var updatePacketsReceived: UInt16 = 0

  var isSelector: Bool { modes[Int(TwistDial.slotChangingMode)].ledMode == 3 }
}

/// The Twist's side of the protocol, as strict as the Flic 2's: full verify only in public mode
/// and with a right verifier, quick verify only for a pairing it has, the link ended on the first
/// bad MAC. Packets have no frame header. Events carry the mode (slot) they happened in;
/// rotation reports carry the delta and where the Twist's own bounds lie.
extension SimulatedFlicButton {
  /// A Twist's active slot (0...11).
  public var twistSlot: Int { dial.activeSlot }

  /// A Twist's position in a mode (0...49152).
  public func twistPosition(mode: Int) -> Int32 { dial.positions[mode] }

  mutating func receiveTwist(_ packet: [UInt8]) -> [[UInt8]] {
    guard !packet.isEmpty, packet.count <= PacketFraming.maximumPacketLength else { return [] }
    switch link {
    case .disconnected: return []
    case .connected, .waitingFullVerify2:
      return handleUnverifiedTwist(packet)
    case .verified, .eventsStarted:
      guard var current = channel, let body = try? current.open(packet) else { return endTwistLink(reason: 0) }
      channel = current
      guard let message = try? TwistToButtonMessage.decode(body) else { return [] }
      return handleVerifiedTwist(message)
    }
  }

  /// Turns the dial by `delta` (1/49152 turn; positive clockwise): the active slot's position,
  /// or mode 12's while the button is held (`pushed`). Reported at once when events are started.
  public mutating func turnTwist(_ delta: Int32, pushed: Bool) -> [[UInt8]] {
    let mode = pushed ? Int(TwistDial.slotChangingMode) : dial.activeSlot
    let position = Swift.max(0, Swift.min(TwistDial.unitsPerTurn, dial.positions[mode] &+ delta))
    dial.positions[mode] = position
    if pushed, dial.isSelector { dial.activeSlot = Int(Swift.min(11, position / TwistDial.unitsPerSlot)) }
    guard link == .eventsStarted else { return [] }
    // Minimum and maximum deltas: how far the bounds lie below and above the new position.
    let rotation = TwistRotation(
      modeIndex: UInt8(mode), totalDelta: delta, minimumDelta: position,
      maximumDelta: position - TwistDial.unitsPerTurn,
      lastHubPacketCounter: dial.updatePacketsReceived)
    return sendTwist(.twistEvent(rotation))
  }

  mutating func pressTwist(_ gesture: PressGesture) -> [[UInt8]] {
    let start = clock
    var out: [[UInt8]] = []
    for step in gesture.twistSteps {
      eventCount &+= 1
      let event = LoggedEvent(count: eventCount, timestamp: start + step.offset, code: step.code)
      if link == .eventsStarted {
        let item = TwistButtonEventItem(
          event: ButtonEventItem(timestamp: event.timestamp, code: event.code), modeIndex: UInt8(dial.activeSlot))
        out += sendTwist(.buttonEvents(pressCounter: event.count, items: [item]))
      } else {
        log.append(event)
      }
    }
    if log.count > 512 { log.removeFirst(log.count - 512) }
    clock = start + gesture.duration + 1
    return out
  }

  private mutating func handleUnverifiedTwist(_ packet: [UInt8]) -> [[UInt8]] {
    // The verify requests have Flic 2's layouts and opcodes (0, 2, 5).
    guard let message = try? ToButtonMessage.decode(packet) else { return [] }
    switch message {
    case .fullVerifyRequest1(let tmpID):
      buttonRandom = random.bytes(8)
      link = .waitingFullVerify2(tmpID: tmpID)
      let response = FullVerifyResponse1(
        tmpID: tmpID, signature: factorySignature, address: identity.address, addressType: 0,
        publicKey: Array(ecdhKey.publicKey.rawRepresentation), buttonRandom: buttonRandom,
        flags: isInPublicMode ? 0x02 : 0)
      return [TwistFromButtonMessage.fullVerifyResponse1(response).encoded()]
    case .fullVerifyRequest2(let request):
      guard case .waitingFullVerify2 = link else { return [] }
      guard isInPublicMode else {
        link = .connected
        return [TwistFromButtonMessage.fullVerifyFail(reason: FullVerifyFailReason.notInPublicMode.rawValue).encoded()]
      }
      guard let centralKey = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: request.publicKey),
        let shared = try? ecdhKey.sharedSecretFromKeyAgreement(with: centralKey).withUnsafeBytes({ Array($0) })
      else { return [] }
      let keys = FullVerifyKeys(
        sharedSecret: shared, variant: variant, buttonRandom: buttonRandom, clientRandom: request.clientRandom,
        flags: request.flags)
      guard keys.verifier == request.verifier else {
        link = .connected
        return [TwistFromButtonMessage.fullVerifyFail(reason: FullVerifyFailReason.invalidVerifier.rawValue).encoded()]
      }
      pairings[keys.pairing.identifier] = keys.pairing.key
      isInPublicMode = false
      channel = SignedChannel(sessionKey: keys.sessionKey, outgoing: .fromButton)
      link = .verified
      let response = FullVerifyResponse2(
        flags: 0x01, buttonUUID: identity.buttonUUID, name: identity.name, firmwareVersion: identity.firmwareVersion,
        batteryLevel: identity.batteryMillivolts, serialNumber: identity.serialNumber)
      return sendTwist(.fullVerifyResponse2(response, color: "black"))
    case .quickVerifyRequest(let request):
      guard let key = pairings[request.pairingID] else {
        link = .connected
        return [TwistFromButtonMessage.quickVerifyNegative(tmpID: request.tmpID).encoded()]
      }
      let random = self.random.bytes(8)
      let sessionKey = Pairing(identifier: request.pairingID, key: key).quickVerifySessionKey(
        clientRandom: request.clientRandom, flags: request.flags, buttonRandom: random)
      channel = SignedChannel(sessionKey: sessionKey, outgoing: .fromButton)
      link = .verified
      return sendTwist(.quickVerifyResponse(buttonRandom: random, tmpID: request.tmpID))
    default:
      return []
    }
  }

  private mutating func handleVerifiedTwist(_ message: TwistToButtonMessage) -> [[UInt8]] {
    switch message {
    case .initButtonEvents(let count, let modes, let requestBootID, _):
      return startTwistEvents(eventCount: count, modes: modes, bootID: requestBootID)
    case .ackButtonEvents(let count):
      log.removeAll { $0.count <= count }
      return []
    case .updateTwistPosition:
      dial.updatePacketsReceived &+= 1
      return []
    case .getBatteryLevel: return sendTwist(.batteryMillivolts(identity.batteryMillivolts))
    case .getFirmwareVersion: return sendTwist(.firmwareVersion(identity.firmwareVersion))
    case .getName:
      return sendTwist(
        .name(identity.name, timestampUTCMilliseconds: nameTimestampUTCMilliseconds, isSetResponse: false))
    case .setName(let name, let timestamp, let force):
      if force || timestamp > nameTimestampUTCMilliseconds {
        identity.name = name
        nameTimestampUTCMilliseconds = timestamp
      }
      return sendTwist(
        .name(identity.name, timestampUTCMilliseconds: nameTimestampUTCMilliseconds, isSetResponse: true))
    }
  }

  /// The central's modes and positions take effect (the Twist keeps no positions across a
  /// connection); queued presses newer than its count follow, and stay queued until acknowledged.
  private mutating func startTwistEvents(
    eventCount requestCount: UInt32, modes: [TwistModeConfig], bootID requestBootID: UInt32
  )
    -> [[UInt8]]
  {
    for (index, mode) in modes.prefix(TwistPositionTracker.modeCount).enumerated() {
      dial.modes[index] = mode
      dial.positions[index] = Int32(Swift.min(UInt16(TwistDial.unitsPerTurn), mode.position))
    }
    if requestBootID == bootID { log.removeAll { $0.count <= requestCount } }
    let pending = log
    link = .eventsStarted
    let response = InitButtonEventsResponse(
      hasQueuedEvents: !pending.isEmpty, timestamp: clock,
      eventCount: pending.first.map { $0.count &- 1 } ?? eventCount, bootID: bootID)
    var out = sendTwist(.initButtonEventsResponse(response, apiVersion: 2))
    // 14 items of 8 bytes fill a packet (opcode, counter and MAC take 10 of its 128 bytes).
    let chunks: [[LoggedEvent]] = stride(from: 0, to: pending.count, by: 14).map {
      Array(pending[$0..<Swift.min(pending.count, $0 + 14)])
    }
    for (index, chunk) in chunks.enumerated() {
      let isLast = index == chunks.count - 1
      let items = chunk.enumerated().map { offset, event in
        TwistButtonEventItem(
          event: ButtonEventItem(
            timestamp: event.timestamp, code: event.code, wasQueued: true,
            wasQueuedLast: isLast && offset == chunk.count - 1),
          modeIndex: UInt8(dial.activeSlot))
      }
      out += sendTwist(.buttonEvents(pressCounter: chunk.last!.count, items: items))
    }
    return out
  }

  mutating func endTwistLink(reason: UInt8) -> [[UInt8]] {
    let out = channel != nil ? sendTwist(.disconnectedVerifiedLink(reason: reason)) : []
    link = .connected
    channel = nil
    return out
  }

  private mutating func sendTwist(_ message: TwistFromButtonMessage) -> [[UInt8]] {
    guard var current = channel else { return [] }
    let packet = current.seal(message.encoded())
    channel = current
    return [packet]
  }
}

extension PressGesture {
  /// What a Twist's push button reports (pyflic-ble's reading of its codes): a plain up, a
  /// second down, and an up that ends a double click.
  var twistSteps: [(code: ButtonEventCode, offset: UInt64)] {
    switch self {
    case .doubleClick:
      return [
        (.down, 0), (.twistUp, Self.tick / 10), (.twistSecondDown, Self.tick * 3 / 10),
        (.twistUpDoubleClick, Self.tick * 4 / 10),
      ]
    case .hold:
      return [(.down, 0), (.hold, Self.tick), (.twistUp, Self.tick * 3 / 2)]
    default:
      return [(.down, 0), (.twistUp, Self.tick / 10), (.singleClickTimeout, Self.tick * 6 / 10)]
    }
  }
}
