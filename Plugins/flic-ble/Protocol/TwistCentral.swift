import Crypto

/// The central side of one Flic Twist connection, without I/O. The Twist speaks Flic 2's
/// protocol with its own opcode table and no frame header: full verify (its key derivation with
/// flags 0), quick verify (flags 0), InitButtonEventsRequest with the 13 modes' configuration
/// and positions, then button events (with the mode they happened in) and rotation reports.
/// `FlicBLECentral` hands a Twist's connection to this.
struct TwistCentral: Sendable {
  typealias State = FlicBLECentral.State
  typealias Step = FlicBLECentral.Step

  private(set) var state: State = .idle
  private(set) var stored: StoredButton?
  let options: FlicBLECentral.Options
  private var tmpID: UInt32 = 0
  private var channel: SignedChannel?
  private var pendingKeys: FullVerifyKeys?
  private var pendingResponse1: FullVerifyResponse1?
  private var quickVerifyRandom: [UInt8] = []
  private var initTimestamp: UInt64 = 0
  private(set) var tracker: TwistPositionTracker
  /// The slot (0...11) the dial is in, as its last report said.
  private var activeSlot: Int?

  init(stored: StoredButton?, options: FlicBLECentral.Options) {
    self.stored = stored
    self.options = options
    tracker = TwistPositionTracker(positions: options.twist?.positions ?? [])
  }

  mutating func start() -> [[UInt8]] {
    tmpID = options.random.u32()
    if let stored {
      quickVerifyRandom = options.random.bytes(7)
      state = .waitingQuickVerify
      // Signature and encryption variants 0, as Shortcut Labs' Twist SDK sends (pyflic-ble).
      let request = QuickVerifyRequest(
        clientRandom: quickVerifyRandom, flags: 0, tmpID: tmpID, pairingID: stored.pairing.identifier)
      return [ToButtonMessage.quickVerifyRequest(request).encoded()]
    }
    state = .waitingFullVerify1
    return [ToButtonMessage.fullVerifyRequest1(tmpID: tmpID).encoded()]
  }

  mutating func receive(_ packet: [UInt8]) -> Step {
    var step = Step()
    guard state != .failed, state != .idle else { return step }
    do {
      guard !packet.isEmpty else { throw FlicBLEError.emptyPacket }
      guard packet.count <= PacketFraming.maximumPacketLength else {
        throw FlicBLEError.packetTooLong(length: packet.count, maximum: PacketFraming.maximumPacketLength)
      }
      try handle(packet, into: &step)
    } catch let error as CentralFailure {
      fail(error, into: &step)
    } catch let error as FlicBLEError {
      fail(.malformed(error), into: &step)
    } catch {
      fail(.keyAgreementFailed, into: &step)
    }
    return step
  }

  /// The Twist's form of a plugin request; requests a Twist has no opcode for send nothing.
  mutating func request(_ message: ToButtonMessage) throws(FlicBLECentral.RequestError) -> [[UInt8]] {
    guard state == .established || state == .waitingInitResponse, channel != nil else { throw .notEstablished }
    switch message {
    case .getBatteryLevel: return signed(.getBatteryLevel)
    case .getFirmwareVersion: return signed(.getFirmwareVersion)
    case .getName: return signed(.getName)
    case .setName(let name, let timestamp, let force):
      return signed(.setName(name, timestampUTCMilliseconds: timestamp, force: force))
    default: return []
    }
  }

  private mutating func handle(_ packet: [UInt8], into step: inout Step) throws {
    let opcode = TwistFromButtonOpcode(rawValue: packet[0])
    switch state {
    case .waitingFullVerify1:
      guard opcode == .fullVerifyResponse1,
        case .fullVerifyResponse1(let response) = try TwistFromButtonMessage.decode(packet), response.tmpID == tmpID
      else { return }
      step.writes += try answerFullVerify1(response)
    case .waitingFullVerify2:
      if opcode == .fullVerifyFailResponse {
        guard case .fullVerifyFail(let reason) = try TwistFromButtonMessage.decode(packet) else { return }
        switch FullVerifyFailReason(rawValue: reason) {
        case .invalidVerifier: throw CentralFailure.invalidVerifier
        case .notInPublicMode: throw CentralFailure.notInPublicMode
        case nil: throw CentralFailure.fullVerifyFailed(reason: reason)
        }
      }
      guard opcode == .fullVerifyResponse2 else { return }
      let body = try open(packet)
      guard case .fullVerifyResponse2(let response, _) = try TwistFromButtonMessage.decode(body),
        let keys = pendingKeys, let first = pendingResponse1
      else { return }
      let button = StoredButton(
        pairing: keys.pairing, address: first.address, buttonUUID: response.buttonUUID,
        serialNumber: response.serialNumber, name: response.name, firmwareVersion: response.firmwareVersion,
        cursor: .none)
      stored = button
      pendingKeys = nil
      // The Twist's battery field is millivolts already (pyflic-ble: raw / 1000 volts).
      step.events += [.paired(button), .battery(millivolts: response.batteryLevel)]
      step.writes += startEvents()
    case .waitingQuickVerify:
      if opcode == .quickVerifyNegativeResponse {
        guard case .quickVerifyNegative(let id) = try TwistFromButtonMessage.decode(packet), id == tmpID else {
          return
        }
        // The Twist has no public TestIfReallyUnpaired to confirm this (Flic 2 has): take it as said.
        state = .failed
        step.events.append(.pairingGone)
        return
      }
      guard opcode == .quickVerifyResponse, let stored, packet.count > SignedChannel.tagLength,
        case .quickVerifyResponse(let random, let id) = try TwistFromButtonMessage.decode(
          Array(packet.dropLast(SignedChannel.tagLength))),
        id == tmpID
      else { return }
      let sessionKey = stored.pairing.quickVerifySessionKey(
        clientRandom: quickVerifyRandom, flags: 0, buttonRandom: random)
      channel = SignedChannel(sessionKey: sessionKey, outgoing: .toButton)
      _ = try open(packet)
      step.events.append(.verified)
      step.writes += startEvents()
    case .waitingInitResponse, .established:
      try deliver(try TwistFromButtonMessage.decode(try open(packet)), into: &step)
    case .idle, .failed, .confirmingUnpaired:
      return
    }
  }

  private mutating func answerFullVerify1(_ response: FullVerifyResponse1) throws -> [[UInt8]] {
    if let expected = options.expectedAddress ?? stored?.address, expected != response.address {
      throw CentralFailure.unexpectedAddress
    }
    guard
      let variant = FactorySignature.variant(
        signature: response.signature, message: response.signedMessage, trustedKeys: options.trustedKeys)
    else { throw CentralFailure.notGenuine }
    let privateKey = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: options.random.bytes(32))
    let buttonKey = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: response.publicKey)
    let shared = try privateKey.sharedSecretFromKeyAgreement(with: buttonKey).withUnsafeBytes { Array($0) }
    let clientRandom = options.random.bytes(8)
    // The Twist derives with flags 0 and is sent variant 0 (pyflic-ble: derive_full_verify_keys(is_twist=True)).
    let keys = FullVerifyKeys(
      sharedSecret: shared, variant: variant, buttonRandom: response.buttonRandom, clientRandom: clientRandom,
      flags: 0)
    pendingKeys = keys
    pendingResponse1 = response
    channel = SignedChannel(sessionKey: keys.sessionKey, outgoing: .toButton)
    state = .waitingFullVerify2
    let request = FullVerifyRequest2(
      publicKey: Array(privateKey.publicKey.rawRepresentation), clientRandom: clientRandom, flags: 0,
      verifier: keys.verifier)
    return [ToButtonMessage.fullVerifyRequest2(request).encoded()]
  }

  /// InitButtonEventsRequest with each mode's configuration and the hub's positions, so the
  /// Twist's LEDs show where the hub's values are.
  private mutating func startEvents() -> [[UInt8]] {
    state = .waitingInitResponse
    let cursor = stored?.cursor ?? .none
    let selector = options.twist?.selector ?? false
    let modes = (0..<TwistPositionTracker.modeCount).map { index in
      let position = UInt16(tracker.position(index))
      if index == Int(TwistDial.slotChangingMode) {
        // Pushed and turned: picks the slot (LED mode 3) in selector mode, else a second dial.
        return TwistModeConfig(ledMode: selector ? 3 : 1, position: position)
      }
      return TwistModeConfig(
        ledMode: 1, hasClick: true, hasDoubleClick: true, position: position, timeoutSeconds: selector ? 60 : 0)
    }
    return signed(
      .initButtonEvents(eventCount: cursor.eventCount, modes: modes, bootID: cursor.bootID, apiVersion: 2))
  }

  private mutating func deliver(_ message: TwistFromButtonMessage, into step: inout Step) throws {
    switch message {
    case .initButtonEventsResponse(let response, _) where state == .waitingInitResponse:
      state = .established
      initTimestamp = response.timestamp
      var cursor = stored?.cursor ?? .none
      let bootID = response.bootID ?? 0
      let bootChanged = bootID != cursor.bootID
      if bootChanged {
        cursor = EventCursor(eventCount: response.eventCount, bootID: bootID)
      } else {
        cursor.eventCount = Swift.max(cursor.eventCount, response.eventCount)
      }
      setCursor(cursor, into: &step)
      // Restored positions, so the plugin's ports show them before the first turn. Without any
      // (the plugin just started) nothing: publishing 0 would turn a routed light off.
      if options.twist?.positions.isEmpty == false {
        for mode in 0..<TwistPositionTracker.modeCount {
          step.events.append(.twistPosition(mode: UInt8(mode), units: tracker.position(mode)))
        }
      }
      step.events.append(.eventsStarted(bootIDChanged: bootChanged, hasQueuedEvents: response.hasQueuedEvents))
      if !response.hasQueuedEvents { step.events.append(.queuedEventsDelivered) }
    case .buttonEvents(let counter, let items) where state == .established:
      deliver(counter: counter, items: items, into: &step)
    case .twistEvent(let rotation) where state == .established:
      let units = tracker.apply(rotation)
      step.events.append(.twistPosition(mode: rotation.modeIndex, units: units))
      if rotation.modeIndex < TwistDial.slotChangingMode {
        noteSlot(Int(rotation.modeIndex), into: &step)
      } else if options.twist?.selector == true {
        noteSlot(Int(Swift.min(11, units / TwistDial.unitsPerSlot)), into: &step)
      }
    case .batteryMillivolts(let millivolts): step.events.append(.battery(millivolts: millivolts))
    case .firmwareVersion(let version):
      stored?.firmwareVersion = version
      step.events.append(.firmwareVersion(version))
    case .name(let name, let timestamp, _):
      stored?.name = name
      step.events.append(.name(name, timestampUTCMilliseconds: timestamp))
    case .disconnectedVerifiedLink(let reason):
      state = .failed
      step.events.append(.linkEnded(reason: reason))
    default: return
    }
  }

  /// Items count up by one each and the counter is the last item's (patchbay's reading: pyflic-ble
  /// keeps only the init response's count). Each is acknowledged so the Twist drops its queue.
  private mutating func deliver(counter: UInt32, items: [TwistButtonEventItem], into step: inout Step) {
    guard var cursor = stored?.cursor, !items.isEmpty else { return }
    var queuedDone = false
    for (offset, item) in items.enumerated() {
      let count = counter &- UInt32(items.count - 1 - offset)
      queuedDone = queuedDone || item.event.wasQueuedLast
      guard count > cursor.eventCount else { continue }
      cursor.eventCount = count
      if item.modeIndex < TwistDial.slotChangingMode { noteSlot(Int(item.modeIndex), into: &step) }
      let event = item.event
      let age =
        event.wasQueued && initTimestamp >= event.timestamp ? Double(initTimestamp - event.timestamp) / 32768 : 0
      for action in event.code.twistActions {
        step.events.append(
          .button(ButtonPress(action: action, eventCount: count, wasQueued: event.wasQueued, ageSeconds: age)))
      }
    }
    setCursor(cursor, into: &step)
    if queuedDone { step.events.append(.queuedEventsDelivered) }
    step.writes += signed(.ackButtonEvents(eventCount: cursor.eventCount))
  }

  private mutating func noteSlot(_ slot: Int, into step: inout Step) {
    guard slot != activeSlot else { return }
    activeSlot = slot
    step.events.append(.twistSlot(slot))
  }

  private mutating func setCursor(_ cursor: EventCursor, into step: inout Step) {
    guard stored?.cursor != cursor else { return }
    stored?.cursor = cursor
    step.events.append(.cursor(cursor))
  }

  private mutating func open(_ packet: [UInt8]) throws -> [UInt8] {
    try channel.openAsCentral(packet)
  }

  private mutating func signed(_ message: TwistToButtonMessage) -> [[UInt8]] {
    guard var current = channel else { return [] }
    let packet = current.seal(message.encoded())
    channel = current
    return [packet]
  }

  private mutating func fail(_ failure: CentralFailure, into step: inout Step) {
    state = .failed
    step.events.append(.failed(failure))
  }
}

extension ButtonEventCode {
  /// A Twist's code as pyflic-ble reads it: bits 0-1 up (0), down (1), single-click timeout (2),
  /// hold (3); bit 2 a second press; bit 3 on an up: it ends a double click.
  public var twistActions: [ButtonAction] {
    switch rawValue & 3 {
    case 0: return rawValue & 8 != 0 ? [.up, .doubleClick] : [.up]
    case 1: return [.down]
    case 2: return [.click]
    default: return [.hold]
    }
  }

  /// The Twist's codes the simulator sends.
  public static let twistUp = ButtonEventCode(rawValue: 0)!
  public static let twistSecondDown = ButtonEventCode(rawValue: 5)!
  public static let twistUpDoubleClick = ButtonEventCode(rawValue: 8)!
}
