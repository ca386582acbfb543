import Crypto

/// The central (hub) side of one Flic 2 connection, without I/O: GATT notifications in, GATT
/// writes and events out. Pairs a new button by full verify, or reconnects a stored one by quick
/// verify; then starts button events from the stored cursor, acknowledges presses, and answers
/// the plugin's requests. A failure moves it to `.failed`; the plugin then drops the connection.
public struct FlicBLECentral: Sendable {
  public struct Options: Sendable {
    public var mtu: Int
    public var trustedKeys: TrustedFactoryKeys
    /// The address the central connected to; FullVerifyResponse1 must be signed for it.
    public var expectedAddress: [UInt8]?
    /// Sets the "supports Duo" flags (0x80 in FullVerifyRequest2, 0x40 in QuickVerifyRequest) as
    /// Shortcut Labs' pyflic-ble does; false sends 0 as their C module does.
    public var supportsDuo: Bool
    /// The button is a Flic Duo (the config says so); a Duo also says it itself in its verify
    /// responses, which the central follows too.
    public var duo: Bool
    public var eventLimits: InitButtonEventsRequest
    public var random: RandomBytes
    /// The button is a Flic Twist: its own opcode table, no frame header, and this setup.
    public var twist: TwistSetup?

    public init(
      mtu: Int = 140, trustedKeys: TrustedFactoryKeys = .shortcutLabs, expectedAddress: [UInt8]? = nil,
      supportsDuo: Bool = true, duo: Bool = false,
      eventLimits: InitButtonEventsRequest = InitButtonEventsRequest(eventCount: 0, bootID: 0),
      random: RandomBytes = .system, twist: TwistSetup? = nil
    ) {
      self.twist = twist
      self.mtu = mtu
      self.trustedKeys = trustedKeys
      self.expectedAddress = expectedAddress
      self.supportsDuo = supportsDuo
      self.duo = duo
      self.eventLimits = eventLimits
      self.random = random
    }
  }

  /// How a Twist's modes are set up at InitButtonEventsRequest.
  public struct TwistSetup: Sendable, Equatable {
    /// Push and turn picks one of the 12 slots (mode 12 shows the selector); else it is a second dial.
    public var selector: Bool
    /// The hub's positions per mode (0...49152), restored so a reconnect resumes where the dial was.
    public var positions: [Int32]

    public init(selector: Bool = false, positions: [Int32] = []) {
      self.selector = selector
      self.positions = positions
    }
  }

  public enum State: Sendable, Equatable {
    case idle, waitingFullVerify1, waitingFullVerify2, waitingQuickVerify, waitingInitResponse, established, failed
    /// Quick verify was refused; checking with the genuine button that the pairing is really gone.
    case confirmingUnpaired
  }

  /// The result of feeding one notification: writes to send in order, and what happened.
  public struct Step: Sendable, Equatable {
    public var writes: [[UInt8]] = []
    public var events: [CentralEvent] = []
  }

  public enum RequestError: Error, Sendable, Equatable { case notEstablished }

  public private(set) var state: State = .idle
  public private(set) var stored: StoredButton?
  private let options: Options
  private var reassembler = PacketReassembler(framing: .headered)
  private var connectionID: UInt8 = 0
  private var tmpID: UInt32 = 0
  private var channel: SignedChannel?
  private var pendingKeys: FullVerifyKeys?
  private var pendingResponse1: FullVerifyResponse1?
  private var quickVerifyRandom: [UInt8] = []
  private var quickVerifyFlags: UInt8 = 0
  private var initTimestamp: UInt64 = 0
  private var unpairedCheck: UnpairedCheck?
  /// Whether the button is a Flic Duo: its own event opcodes and two event counts.
  public private(set) var isDuo: Bool
  private var duoDecoder = DuoEventDecoder()
  /// A Flic Twist's session, which this central hands everything to.
  private var twist: TwistCentral?

  /// `stored` nil pairs (full verify); a stored button reconnects (quick verify).
  public init(stored: StoredButton?, options: Options = Options()) {
    self.stored = stored
    self.options = options
    isDuo = options.duo
    if options.twist != nil { twist = TwistCentral(stored: stored, options: options) }
  }

  /// A Twist's dial positions per mode (0...49152), as the hub tracks them.
  public var twistPositions: [Int32]? { twist?.tracker.positions }

  public var cursor: EventCursor? { stored?.cursor }

  /// The first write of the connection (after the notifications are enabled).
  public mutating func start() -> [[UInt8]] {
    if var session = twist {
      defer { adopt(session) }
      return session.start()
    }
    tmpID = options.random.u32()
    if let stored {
      quickVerifyRandom = options.random.bytes(7)
      quickVerifyFlags = options.supportsDuo ? 0x40 : 0
      state = .waitingQuickVerify
      let request = QuickVerifyRequest(
        clientRandom: quickVerifyRandom, flags: quickVerifyFlags, tmpID: tmpID, pairingID: stored.pairing.identifier)
      return frame(ToButtonMessage.quickVerifyRequest(request).encoded())
    }
    state = .waitingFullVerify1
    return frame(ToButtonMessage.fullVerifyRequest1(tmpID: tmpID).encoded())
  }

  /// Feeds one GATT notification. Malformed bytes fail the session (reported as an event), never trap.
  public mutating func receive(_ notification: [UInt8]) -> Step {
    if var session = twist {
      defer { adopt(session) }
      return session.receive(notification)
    }
    var step = Step()
    guard state != .failed, state != .idle else { return step }
    do {
      guard let (header, packet) = try reassembler.receive(notification), let header else { return step }
      if header.newlyAssigned ? connectionID != 0 : (header.connectionID != 0 && header.connectionID != connectionID) {
        return step  // for another app's logical connection
      }
      try handle(packet, header: header, into: &step)
    } catch let error as CentralFailure {
      fail(error, into: &step)
    } catch let error as FlicBLEError {
      fail(.malformed(error), into: &step)
    } catch {
      // Only Crypto throws anything else: an X25519 key that gives no shared secret.
      fail(.keyAgreementFailed, into: &step)
    }
    return step
  }

  /// Writes for a request once the session is established.
  public mutating func request(_ message: ToButtonMessage) throws(RequestError) -> [[UInt8]] {
    if var session = twist {
      defer { adopt(session) }
      return try session.request(message)
    }
    guard state == .established || state == .waitingInitResponse, channel != nil else { throw .notEstablished }
    return signed(message)
  }

  private mutating func adopt(_ session: TwistCentral) {
    twist = session
    state = session.state
    stored = session.stored
  }

  private mutating func handle(_ packet: [UInt8], header: FrameHeader, into step: inout Step) throws {
    let opcode = FromButtonOpcode(rawValue: packet[0])
    switch state {
    case .confirmingUnpaired:
      if opcode == .fullVerifyResponse1, unpairedCheck == nil {
        guard case .fullVerifyResponse1(let response) = try FromButtonMessage.decode(packet), response.tmpID == tmpID
        else { return }
        connectionID = header.connectionID
        step.writes += try askIfReallyUnpaired(response)
      } else if opcode == .testIfReallyUnpairedResponse, let check = unpairedCheck, let stored {
        guard case .testIfReallyUnpairedResult(let result) = try FromButtonMessage.decode(packet) else { return }
        state = .failed
        if result == check.notExisting(token: check.pairingToken(for: stored.pairing)) {
          step.events.append(.pairingGone)
        } else if result == check.existing(stored.pairing) {
          throw CentralFailure.refusalNotConfirmed
        } else {
          throw CentralFailure.notGenuine
        }
      }
    case .waitingFullVerify1, .waitingQuickVerify:
      if opcode == .noLogicalConnectionSlotsInd {
        guard case .noLogicalConnectionSlots(let ids) = try FromButtonMessage.decode(packet), ids.contains(tmpID) else {
          return
        }
        throw CentralFailure.noConnectionSlots
      }
      if state == .waitingFullVerify1, opcode == .fullVerifyResponse1 {
        guard case .fullVerifyResponse1(let response) = try FromButtonMessage.decode(packet), response.tmpID == tmpID
        else { return }
        connectionID = header.connectionID
        step.writes += try answerFullVerify1(response)
      } else if state == .waitingQuickVerify, opcode == .quickVerifyResponse {
        try answerQuickVerify(packet, header: header, into: &step)
      } else if state == .waitingQuickVerify, opcode == .quickVerifyNegativeResponse {
        guard case .quickVerifyNegative(let id) = try FromButtonMessage.decode(packet), id == tmpID else { return }
        // Unauthenticated: confirm with the genuine button before forgetting the pairing.
        state = .confirmingUnpaired
        tmpID = options.random.u32()
        step.writes += frame(ToButtonMessage.fullVerifyRequest1(tmpID: tmpID).encoded())
      }
    case .waitingFullVerify2:
      if opcode == .fullVerifyFailResponse {
        guard case .fullVerifyFail(let reason) = try FromButtonMessage.decode(packet) else { return }
        switch FullVerifyFailReason(rawValue: reason) {
        case .invalidVerifier: throw CentralFailure.invalidVerifier
        case .notInPublicMode: throw CentralFailure.notInPublicMode
        case nil: throw CentralFailure.fullVerifyFailed(reason: reason)
        }
      }
      guard opcode == .fullVerifyResponse2, header.connectionID != 0 else { return }
      let body = try open(packet)
      guard case .fullVerifyResponse2(let response) = try FromButtonMessage.decode(body), let keys = pendingKeys,
        let first = pendingResponse1
      else { return }
      if response.flags & 0x04 != 0 { isDuo = true }
      let button = StoredButton(
        pairing: keys.pairing, address: first.address, buttonUUID: response.buttonUUID,
        serialNumber: response.serialNumber, name: response.name, firmwareVersion: response.firmwareVersion,
        cursor: .none)
      stored = button
      pendingKeys = nil
      step.events += [.paired(button), .battery(millivolts: BatteryLevel(raw: response.batteryLevel).millivolts)]
      step.writes += startEvents(maxQueuedPackets: 0)
    case .waitingInitResponse, .established:
      guard header.connectionID != 0 else { return }
      let body = try open(packet)
      if body.first == FromButtonOpcode.buttonEventDuoNotification.rawValue {
        guard state == .established, isDuo else { return }
        deliverDuo(try duoDecoder.decode(Array(body.dropFirst())), into: &step)
        return
      }
      try deliver(try FromButtonMessage.decode(body), into: &step)
    case .idle, .failed:
      return
    }
  }

  /// The factory check of FullVerifyResponse1 and the key agreement: variant, own key, shared secret.
  private func agree(_ response: FullVerifyResponse1) throws -> (
    variant: UInt8, privateKey: Curve25519.KeyAgreement.PrivateKey, shared: [UInt8]
  ) {
    let expected = options.expectedAddress ?? stored?.address
    if let expected, expected != response.address { throw CentralFailure.unexpectedAddress }
    guard
      let variant = FactorySignature.variant(
        signature: response.signature, message: response.signedMessage, trustedKeys: options.trustedKeys)
    else { throw CentralFailure.notGenuine }
    let privateKey = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: options.random.bytes(32))
    let buttonKey = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: response.publicKey)
    let shared = try privateKey.sharedSecretFromKeyAgreement(with: buttonKey).withUnsafeBytes { Array($0) }
    return (variant, privateKey, shared)
  }

  private mutating func askIfReallyUnpaired(_ response: FullVerifyResponse1) throws -> [[UInt8]] {
    guard let stored else { return [] }
    let (variant, privateKey, shared) = try agree(response)
    let clientRandom = options.random.bytes(8)
    let check = UnpairedCheck(
      sharedSecret: shared, variant: variant, buttonRandom: response.buttonRandom, clientRandom: clientRandom)
    unpairedCheck = check
    return frame(
      ToButtonMessage.testIfReallyUnpaired(
        publicKey: Array(privateKey.publicKey.rawRepresentation), clientRandom: clientRandom,
        pairingID: stored.pairing.identifier, pairingToken: check.pairingToken(for: stored.pairing)
      ).encoded())
  }

  private mutating func answerFullVerify1(_ response: FullVerifyResponse1) throws -> [[UInt8]] {
    let (variant, privateKey, shared) = try agree(response)
    let clientRandom = options.random.bytes(8)
    let flags: UInt8 = options.supportsDuo ? 0x80 : 0
    let keys = FullVerifyKeys(
      sharedSecret: shared, variant: variant, buttonRandom: response.buttonRandom, clientRandom: clientRandom,
      flags: flags)
    pendingKeys = keys
    pendingResponse1 = response
    channel = SignedChannel(sessionKey: keys.sessionKey, outgoing: .toButton)
    state = .waitingFullVerify2
    let request = FullVerifyRequest2(
      publicKey: Array(privateKey.publicKey.rawRepresentation), clientRandom: clientRandom, flags: flags,
      verifier: keys.verifier)
    return frame(ToButtonMessage.fullVerifyRequest2(request).encoded())
  }

  private mutating func answerQuickVerify(_ packet: [UInt8], header: FrameHeader, into step: inout Step) throws {
    guard let stored, packet.count > SignedChannel.tagLength else { return }
    guard case .quickVerifyResponse(let response) = try FromButtonMessage.decode(Array(packet.dropLast(5))),
      response.tmpID == tmpID
    else { return }
    connectionID = header.connectionID
    if response.flags & 0x40 != 0 { isDuo = true }
    let sessionKey = stored.pairing.quickVerifySessionKey(
      clientRandom: quickVerifyRandom, flags: quickVerifyFlags, buttonRandom: response.buttonRandom)
    channel = SignedChannel(sessionKey: sessionKey, outgoing: .toButton)
    _ = try open(packet)
    step.events.append(.verified)
    step.writes += startEvents(maxQueuedPackets: options.eventLimits.maxQueuedPackets)
  }

  private mutating func startEvents(maxQueuedPackets: UInt8) -> [[UInt8]] {
    state = .waitingInitResponse
    let cursor = stored?.cursor ?? .none
    var request = options.eventLimits
    request.eventCount = cursor.eventCount
    request.bootID = cursor.bootID
    request.maxQueuedPackets = maxQueuedPackets
    if isDuo {
      return signed(
        .initButtonEventsDuo(
          eventCounts: (cursor.eventCount, cursor.smallEventCount), bootID: cursor.bootID, limits: request))
    }
    return signed(.initButtonEvents(request, light: true))
  }

  private mutating func deliver(_ message: FromButtonMessage, into step: inout Step) throws {
    switch message {
    case .initButtonEventsResponse(let response) where state == .waitingInitResponse:
      state = .established
      initTimestamp = response.timestamp
      var cursor = stored?.cursor ?? .none
      if let bootID = response.bootID {
        cursor = EventCursor(eventCount: response.eventCount, bootID: bootID)
      } else {
        cursor.eventCount = Swift.max(cursor.eventCount, response.eventCount)
      }
      setCursor(cursor, into: &step)
      step.events.append(
        .eventsStarted(bootIDChanged: response.bootID != nil, hasQueuedEvents: response.hasQueuedEvents))
      if !response.hasQueuedEvents { step.events.append(.queuedEventsDelivered) }
    case .initButtonEventsDuoResponse(let response) where state == .waitingInitResponse:
      state = .established
      initTimestamp = response.timestamp
      var cursor = stored?.cursor ?? .none
      if let bootID = response.bootID {
        cursor = EventCursor(
          eventCount: response.eventCounts.0, bootID: bootID, smallEventCount: response.eventCounts.1)
      } else {
        cursor.eventCount = Swift.max(cursor.eventCount, response.eventCounts.0)
        cursor.smallEventCount = Swift.max(cursor.smallEventCount, response.eventCounts.1)
      }
      // The Duo's events carry counts and timestamps as deltas from here.
      duoDecoder = DuoEventDecoder(
        eventCounts: [UInt64(response.eventCounts.0), UInt64(response.eventCounts.1)], lastTimestamp: 0,
        hasSeenEndOfQueue: false)
      setCursor(cursor, into: &step)
      step.events.append(
        .eventsStarted(bootIDChanged: response.bootID != nil, hasQueuedEvents: response.hasQueuedEvents))
      if !response.hasQueuedEvents { step.events.append(.queuedEventsDelivered) }
    case .buttonEvents(let notification) where state == .established:
      deliver(notification, into: &step)
    case .batteryLevel(let level): step.events.append(.battery(millivolts: level.millivolts))
    case .firmwareVersion(let version):
      stored?.firmwareVersion = version
      step.events.append(.firmwareVersion(version))
    case .name(let name, let timestamp, _):
      stored?.name = name
      step.events.append(.name(name, timestampUTCMilliseconds: timestamp))
    case .nameUpdated(let name):
      stored?.name = name
      step.events.append(.name(name, timestampUTCMilliseconds: 0))
    case .pingRequest: step.writes += signed(.pingResponse)
    case .disconnectedVerifiedLink(let reason):
      state = .failed
      step.events.append(.linkEnded(reason: reason))
    default: return
    }
  }

  private mutating func deliver(_ notification: ButtonEventNotification, into step: inout Step) {
    guard var cursor = stored?.cursor else { return }
    var acknowledge = false
    var queuedDone = false
    for (item, count) in zip(notification.items, notification.itemEventCounts) {
      queuedDone = queuedDone || item.wasQueuedLast
      let code = item.code
      if code.rawValue == 2 || (code.rawValue >= 8 && code.rawValue & 2 != 0) { acknowledge = true }
      // Already delivered before a reconnect: the button may resend what it never saw acknowledged.
      guard count > cursor.eventCount else { continue }
      cursor.eventCount = count
      let age = item.wasQueued && initTimestamp >= item.timestamp ? Double(initTimestamp - item.timestamp) / 32768 : 0
      for action in code.actions {
        step.events.append(
          .button(ButtonPress(action: action, eventCount: count, wasQueued: item.wasQueued, ageSeconds: age)))
      }
    }
    setCursor(cursor, into: &step)
    if queuedDone { step.events.append(.queuedEventsDelivered) }
    if acknowledge { step.writes += signed(.ackButtonEvents(eventCount: cursor.eventCount)) }
  }

  /// A Duo's events: per-button counts (the small button's in `smallEventCount`), swipes apart.
  /// No acknowledgement: pyflic-ble sends none for a Duo and the Duo's is not public; the counts
  /// in the next InitButtonEventsDuoRequest tell the button what has been delivered.
  private mutating func deliverDuo(_ events: [DuoButtonEvent], into step: inout Step) {
    guard var cursor = stored?.cursor else { return }
    var queuedDone = false
    for event in events {
      queuedDone = queuedDone || event.wasQueuedLast
      let count = UInt32(truncatingIfNeeded: event.eventCount)
      let delivered = event.buttonIndex == 0 ? cursor.eventCount : cursor.smallEventCount
      guard count > delivered else { continue }
      if event.buttonIndex == 0 { cursor.eventCount = count } else { cursor.smallEventCount = count }
      let age =
        event.wasQueued && initTimestamp >= event.timestamp ? Double(initTimestamp - event.timestamp) / 32768 : 0
      if let gesture = event.gesture {
        // A swipe is its own gesture: its release is not also a click.
        step.events.append(
          .swipe(
            DuoSwipe(
              direction: gesture, buttonIndex: event.buttonIndex, eventCount: count, wasQueued: event.wasQueued,
              ageSeconds: age)))
        if event.kind.actions.contains(.up) {
          step.events.append(
            .button(
              ButtonPress(
                action: .up, eventCount: count, wasQueued: event.wasQueued, ageSeconds: age,
                buttonIndex: event.buttonIndex)))
        }
        continue
      }
      for action in event.kind.actions {
        step.events.append(
          .button(
            ButtonPress(
              action: action, eventCount: count, wasQueued: event.wasQueued, ageSeconds: age,
              buttonIndex: event.buttonIndex)))
      }
    }
    setCursor(cursor, into: &step)
    if queuedDone { step.events.append(.queuedEventsDelivered) }
  }

  private mutating func setCursor(_ cursor: EventCursor, into step: inout Step) {
    guard stored?.cursor != cursor else { return }
    stored?.cursor = cursor
    step.events.append(.cursor(cursor))
  }

  private mutating func open(_ packet: [UInt8]) throws -> [UInt8] {
    try channel.openAsCentral(packet)
  }

  private mutating func signed(_ message: ToButtonMessage) -> [[UInt8]] {
    guard var current = channel else { return [] }
    let packet = current.seal(message.encoded())
    channel = current
    return frame(packet)
  }

  private func frame(_ packet: [UInt8]) -> [[UInt8]] {
    PacketFraming.headered.pieces(packet, connectionID: connectionID, mtu: options.mtu)
  }

  private mutating func fail(_ failure: CentralFailure, into step: inout Step) {
    state = .failed
    step.events.append(.failed(failure))
  }
}
