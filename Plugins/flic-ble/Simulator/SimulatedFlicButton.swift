import Crypto
import FlicBLEProtocol

/// The peripheral side of the Flic 2 protocol, without I/O: GATT writes in, notifications out.
/// It is as strict as a real button: it answers full verify only in public mode and with a right
/// verifier, quick verify only for a pairing it still has, and ends a verified link on the first
/// bad MAC or counter. Presses while no central has started events are queued with their button
/// timestamps; a central that starts events gets the queued presses newer than its cursor (all of
/// them after a reboot or from a new central), and they stay queued until acknowledged. Presses
/// made while events are started go out live and are not queued again (an assumption: the
/// public sources do not say whether a real button re-queues unacknowledged live presses).
public struct SimulatedFlicButton: Sendable {
  /// Which Flic: a Flic 2, a Flic Duo (two buttons with swipes, its own event opcodes), or a
  /// Flic Twist (a dial with a push button: its own opcode table, no frame header).
  public enum Model: String, Sendable {
    case flic2, duo, twist
  }

  public struct Identity: Sendable {
    public var model: Model
    public var address: [UInt8]
    public var serialNumber: String
    public var buttonUUID: [UInt8]
    public var name: String
    public var firmwareVersion: UInt32
    public var batteryMillivolts: UInt16

    public init(
      model: Model = .flic2, address: [UInt8] = [0x0B, 0x0A, 0x09, 0x08, 0x07, 0x06],
      serialNumber: String = "BG00-C00001",
      buttonUUID: [UInt8] = Array(0x10..<0x20), name: String = "", firmwareVersion: UInt32 = 10,
      batteryMillivolts: UInt16 = 3000
    ) {
      self.model = model
      self.address = address
      self.serialNumber = serialNumber
      self.buttonUUID = buttonUUID
      self.name = name
      self.firmwareVersion = firmwareVersion
      self.batteryMillivolts = batteryMillivolts
    }
  }

  /// One queued event: pressed while no central had started events, kept until acknowledged.
  struct LoggedEvent: Sendable {
    let count: UInt32
    let timestamp: UInt64
    let code: ButtonEventCode
    /// A Duo's: which button, its own kind and a swipe.
    var buttonIndex = 0
    var duoKind: DuoButtonEvent.Kind? = nil
    var gesture: DuoButtonEvent.Gesture? = nil
  }

  enum LinkState: Sendable, Equatable {
    case disconnected
    case connected
    case waitingFullVerify2(tmpID: UInt32)
    /// Verified; events start with InitButtonEventsRequest.
    case verified
    case eventsStarted
  }

  public internal(set) var identity: Identity
  public let mtu: Int
  /// The button's clock in 1/32768 s since power-on.
  public internal(set) var clock: UInt64 = 1 << 20
  public private(set) var bootID: UInt32
  public internal(set) var eventCount: UInt32 = 0
  /// A Duo's small button counts apart.
  public private(set) var smallEventCount: UInt32 = 0
  public internal(set) var nameTimestampUTCMilliseconds: UInt64 = 0
  /// In public mode a central may pair (a new button, or after a 7-second hold).
  public internal(set) var isInPublicMode: Bool
  public var pairingCount: Int { pairings.count }

  let factorySignature: [UInt8]
  let ecdhKey: Curve25519.KeyAgreement.PrivateKey
  let random: RandomBytes
  var pairings: [UInt32: [UInt8]] = [:]
  var log: [LoggedEvent] = []
  var link: LinkState = .disconnected
  private var reassembler = PacketReassembler(framing: .headered)
  private var connectionID: UInt8 = 0
  var channel: SignedChannel?
  var variant: UInt8 = 0
  var buttonRandom: [UInt8] = []
  /// A Duo's event stream state, from InitButtonEventsDuoResponse on.
  private var duoEncoder: DuoEventEncoder?
  /// A Twist's dial: its modes as the central configured them, positions, the active slot.
  var dial = TwistDialState()

  /// `factoryKey` signs this button's identity once, as at manufacture; centrals must trust its
  /// public key (a test key, never Shortcut Labs' real one).
  public init(
    identity: Identity = Identity(), factoryKey: Curve25519.Signing.PrivateKey, random: RandomBytes = .system,
    mtu: Int = 140
  ) {
    self.identity = identity
    self.mtu = mtu
    self.random = random
    bootID = random.u32() | 1
    ecdhKey = try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: random.bytes(32))
    let message = FactorySignature.message(
      address: identity.address, addressType: 0, publicKey: Array(ecdhKey.publicKey.rawRepresentation))
    var signature = Array(try! factoryKey.signature(for: message))
    variant = signature[32] & 0x03
    // On the air the variant bits are not the genuine ones; the central finds them by trying.
    signature[32] = (signature[32] & 0xFC) | ((variant &+ 1 &+ (random.bytes(1)[0] % 3)) & 0x03)
    factorySignature = signature
    isInPublicMode = true
  }

  /// A fixed test factory key (deterministic, so a central in another process can trust it).
  public static func testFactoryKey(seed: UInt8 = 0x5A) -> Curve25519.Signing.PrivateKey {
    try! Curve25519.Signing.PrivateKey(rawRepresentation: (0..<32).map { seed &+ UInt8($0) })
  }

  /// The test factory key of a model: a simulated Twist is signed by a key of its own, as a
  /// real Twist is by Shortcut Labs' Twist key.
  public static func testFactoryKey(for model: Model) -> Curve25519.Signing.PrivateKey {
    testFactoryKey(seed: model == .twist ? 0x7A : 0x5A)
  }

  /// The test factory key's public half in lowercase hex, as the plugin's `test_factory_key`
  /// and the tool's `--test-factory-key` take it.
  public static var testFactoryKeyHex: String { testFactoryKeyHex(for: .flic2) }

  public static func testFactoryKeyHex(for model: Model) -> String {
    testFactoryKey(for: model).publicKey.rawRepresentation.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
      .joined()
  }

  // MARK: The radio link

  public var isConnected: Bool { link != .disconnected }

  public mutating func connect() {
    link = .connected
    dial.pushed = false
    duoEncoder = nil
    reassembler.reset()
    channel = nil
    connectionID = 0
  }

  public mutating func disconnect() {
    link = .disconnected
    duoEncoder = nil
    channel = nil
    connectionID = 0
  }

  /// One GATT write from the central; returns the notifications to send, in order. Bytes that are
  /// not a valid packet for the current state are ignored, as a button does.
  public mutating func receive(_ write: [UInt8]) -> [[UInt8]] {
    guard link != .disconnected else { return [] }
    if identity.model == .twist { return receiveTwist(write) }
    guard let (optionalHeader, packet) = try? reassembler.receive(write), let header = optionalHeader else { return [] }
    switch link {
    case .disconnected: return []
    case .connected, .waitingFullVerify2:
      return handleUnverified(packet, header: header)
    case .verified, .eventsStarted:
      guard header.connectionID == connectionID else { return [] }
      guard var current = channel, let body = try? current.open(packet) else { return endLink(.invalidSignature) }
      channel = current
      guard let message = try? ToButtonMessage.decode(body) else { return [] }
      return handleVerified(message)
    }
  }

  // MARK: The physical button

  /// Lets time pass on the button's clock.
  public mutating func advance(seconds: Double) { clock &+= UInt64(seconds * 32768) }

  /// A gesture: logged with its timestamps, sent at once when a central has started events.
  public mutating func press(_ gesture: PressGesture, buttonIndex: Int = 0) -> [[UInt8]] {
    if identity.model == .duo { return pressDuo(gesture, buttonIndex: buttonIndex == 0 ? 0 : 1) }
    if identity.model == .twist { return pressTwist(gesture) }
    let start = clock
    var out: [[UInt8]] = []
    for step in gesture.steps {
      eventCount = Self.next(after: eventCount, residue: step.code.counterResidue)
      let event = LoggedEvent(count: eventCount, timestamp: start + step.offset, code: step.code)
      if link == .eventsStarted {
        let item = ButtonEventItem(timestamp: event.timestamp, code: event.code)
        out += send(.buttonEvents(ButtonEventNotification(pressCounter: event.count, items: [item])))
      } else {
        log.append(event)
      }
    }
    if log.count > 512 { log.removeFirst(log.count - 512) }
    clock = start + gesture.duration + 1
    return out
  }

  private mutating func pressDuo(_ gesture: PressGesture, buttonIndex: Int) -> [[UInt8]] {
    let start = clock
    var out: [[UInt8]] = []
    for step in gesture.duoSteps {
      let count = Self.next(after: buttonIndex == 0 ? eventCount : smallEventCount, residue: step.kind.counterResidue)
      if buttonIndex == 0 { eventCount = count } else { smallEventCount = count }
      let event = LoggedEvent(
        count: count, timestamp: start + step.offset, code: step.kind.flic2Code, buttonIndex: buttonIndex,
        duoKind: step.kind, gesture: step.gesture)
      if link == .eventsStarted, duoEncoder != nil {
        out += sendDuo(event, wasQueued: false, wasQueuedLast: false)
      } else {
        log.append(event)
      }
    }
    if log.count > 512 { log.removeFirst(log.count - 512) }
    clock = start + gesture.duration + 1
    return out
  }

  private mutating func sendDuo(_ event: LoggedEvent, wasQueued: Bool, wasQueuedLast: Bool) -> [[UInt8]] {
    guard var encoder = duoEncoder, let kind = event.duoKind else { return [] }
    let payload = encoder.encode(
      DuoEventEncoder.Event(
        buttonIndex: event.buttonIndex, eventCount: UInt64(event.count), timestamp: event.timestamp, kind: kind,
        gesture: event.gesture, wasQueued: wasQueued, wasQueuedLast: wasQueuedLast))
    duoEncoder = encoder
    return sendBody([FromButtonOpcode.buttonEventDuoNotification.rawValue] + payload)
  }

  /// Holding the button for 7 seconds: it becomes pairable.
  public mutating func holdForPairing() { isInPublicMode = true }

  /// The owner resets the button: every pairing is forgotten and the link (if any) ends.
  public mutating func resetByOwner() -> [[UInt8]] {
    pairings = [:]
    isInPublicMode = true
    let verified = link == .verified || link == .eventsStarted
    let out = verified ? (identity.model == .twist ? endTwistLink(reason: 2) : endLink(.byUser)) : []
    disconnect()
    return out
  }

  /// Battery swap: a new boot id, and the counter and the queue start over.
  public mutating func reboot() {
    disconnect()
    bootID = random.u32() | 1
    eventCount = 0
    smallEventCount = 0
    log = []
    dial = TwistDialState()
  }

  // MARK: Protocol

  private mutating func handleUnverified(_ packet: [UInt8], header: FrameHeader) -> [[UInt8]] {
    guard let message = try? ToButtonMessage.decode(packet) else { return [] }
    switch message {
    case .fullVerifyRequest1(let tmpID):
      connectionID = newConnectionID()
      buttonRandom = random.bytes(8)
      link = .waitingFullVerify2(tmpID: tmpID)
      let response = FullVerifyResponse1(
        tmpID: tmpID, signature: factorySignature, address: identity.address, addressType: 0,
        publicKey: Array(ecdhKey.publicKey.rawRepresentation), buttonRandom: buttonRandom,
        flags: isInPublicMode ? 0x02 : 0)
      return frame(FromButtonMessage.fullVerifyResponse1(response).encoded(), newlyAssigned: true)
    case .fullVerifyRequest2(let request):
      guard case .waitingFullVerify2 = link, header.connectionID == connectionID else { return [] }
      return answerFullVerify2(request)
    case .testIfReallyUnpaired(let publicKey, let clientRandom, let pairingID, let token):
      guard case .waitingFullVerify2 = link, header.connectionID == connectionID,
        let centralKey = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: publicKey),
        let shared = try? ecdhKey.sharedSecretFromKeyAgreement(with: centralKey).withUnsafeBytes({ Array($0) })
      else { return [] }
      link = .connected
      let check = UnpairedCheck(
        sharedSecret: shared, variant: variant, buttonRandom: buttonRandom, clientRandom: clientRandom)
      // Only a central that holds the pairing can produce its token; anyone else learns nothing.
      let result: [UInt8]
      if let key = pairings[pairingID], check.pairingToken(for: Pairing(identifier: pairingID, key: key)) == token {
        result = check.existing(Pairing(identifier: pairingID, key: key))
      } else {
        result = check.notExisting(token: token)
      }
      return frame(FromButtonMessage.testIfReallyUnpairedResult(result).encoded())
    case .quickVerifyRequest(let request):
      guard let key = pairings[request.pairingID] else {
        link = .connected
        return PacketFraming.headered.pieces(
          FromButtonMessage.quickVerifyNegative(tmpID: request.tmpID).encoded(), connectionID: 0, mtu: mtu)
      }
      connectionID = newConnectionID()
      let random = self.random.bytes(8)
      let sessionKey = Pairing(identifier: request.pairingID, key: key).quickVerifySessionKey(
        clientRandom: request.clientRandom, flags: request.flags, buttonRandom: random)
      channel = SignedChannel(sessionKey: sessionKey, outgoing: .fromButton)
      link = .verified
      // A Duo says so (supportsDuo, bit 6), as pyflic-ble reads it.
      let response = QuickVerifyResponse(
        buttonRandom: random, tmpID: request.tmpID, flags: identity.model == .duo ? 0x40 : 0)
      return frame(channel!.seal(FromButtonMessage.quickVerifyResponse(response).encoded()), newlyAssigned: true)
    default:
      return []
    }
  }

  private mutating func answerFullVerify2(_ request: FullVerifyRequest2) -> [[UInt8]] {
    guard isInPublicMode else {
      link = .connected
      return frame(FromButtonMessage.fullVerifyFail(reason: FullVerifyFailReason.notInPublicMode.rawValue).encoded())
    }
    guard let centralKey = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: request.publicKey),
      let shared = try? ecdhKey.sharedSecretFromKeyAgreement(with: centralKey).withUnsafeBytes({ Array($0) })
    else { return [] }
    let keys = FullVerifyKeys(
      sharedSecret: shared, variant: variant, buttonRandom: buttonRandom, clientRandom: request.clientRandom,
      flags: request.flags)
    guard keys.verifier == request.verifier else {
      link = .connected
      return frame(FromButtonMessage.fullVerifyFail(reason: FullVerifyFailReason.invalidVerifier.rawValue).encoded())
    }
    pairings[keys.pairing.identifier] = keys.pairing.key
    isInPublicMode = false
    channel = SignedChannel(sessionKey: keys.sessionKey, outgoing: .fromButton)
    link = .verified
    let response = FullVerifyResponse2(
      flags: identity.model == .duo ? 0x05 : 0x01, buttonUUID: identity.buttonUUID, name: identity.name,
      firmwareVersion: identity.firmwareVersion,
      batteryLevel: BatteryLevel(millivolts: identity.batteryMillivolts).raw, serialNumber: identity.serialNumber)
    return send(.fullVerifyResponse2(response))
  }

  private mutating func handleVerified(_ message: ToButtonMessage) -> [[UInt8]] {
    switch message {
    case .initButtonEvents(let request, _):
      return startEvents(request)
    case .initButtonEventsDuo(let counts, let bootID, let limits) where identity.model == .duo:
      return startDuoEvents(counts: counts, bootID: bootID, limits: limits)
    case .ackButtonEvents(let count):
      log.removeAll { $0.count <= count }
      return []
    case .getBatteryLevel: return send(.batteryLevel(BatteryLevel(millivolts: identity.batteryMillivolts)))
    case .getFirmwareVersion: return send(.firmwareVersion(identity.firmwareVersion))
    case .getName:
      return send(.name(identity.name, timestampUTCMilliseconds: nameTimestampUTCMilliseconds, isSetResponse: false))
    case .setName(let name, let timestamp, let force):
      // A name older than the button's stays out unless forced; the answer is the name in force.
      if force || timestamp > nameTimestampUTCMilliseconds {
        identity.name = name
        nameTimestampUTCMilliseconds = timestamp
      }
      return send(.name(identity.name, timestampUTCMilliseconds: nameTimestampUTCMilliseconds, isSetResponse: true))
    case .disconnectVerifiedLink:
      link = .connected
      channel = nil
      return []
    case .forceBtDisconnect:
      disconnect()
      return []
    case .setConnectionParameters, .setAutoDisconnectTime, .pingResponse, .enablePushTwist:
      return []
    default:
      return []
    }
  }

  private mutating func startEvents(_ request: InitButtonEventsRequest) -> [[UInt8]] {
    let sameBoot = request.bootID == bootID
    if sameBoot { log.removeAll { $0.count <= request.eventCount } }
    let oldest = clock &- UInt64(request.maxQueuedPacketsAge) * 32768
    var pending = log.filter { request.maxQueuedPacketsAge == 0xFFFFF || $0.timestamp >= oldest }
    // 16 items of 7 bytes fill a packet (opcode, counter and MAC take 10 of its 128 bytes).
    pending = Array(pending.suffix(Int(request.maxQueuedPackets) * 16))
    link = .eventsStarted
    let response = InitButtonEventsResponse(
      hasQueuedEvents: !pending.isEmpty, timestamp: clock,
      eventCount: pending.first.map { $0.count &- 1 } ?? eventCount, bootID: sameBoot ? nil : bootID)
    var out = send(.initButtonEventsResponse(response))
    let chunks: [[LoggedEvent]] = stride(from: 0, to: pending.count, by: 16).map {
      Array(pending[$0..<Swift.min(pending.count, $0 + 16)])
    }
    for (index, chunk) in chunks.enumerated() {
      let isLast = index == chunks.count - 1
      let items = chunk.enumerated().map { offset, event in
        ButtonEventItem(
          timestamp: event.timestamp, code: event.code, wasQueued: true,
          wasQueuedLast: isLast && offset == chunk.count - 1)
      }
      out += send(.buttonEvents(ButtonEventNotification(pressCounter: chunk.last!.count, items: items)))
    }
    return out
  }

  /// As `startEvents`, per button: each button's queued events newer than the central's count.
  private mutating func startDuoEvents(
    counts: (UInt32, UInt32), bootID requestBootID: UInt32, limits: InitButtonEventsRequest
  ) -> [[UInt8]] {
    let sameBoot = requestBootID == bootID
    if sameBoot { log.removeAll { $0.count <= ($0.buttonIndex == 0 ? counts.0 : counts.1) } }
    let oldest = clock &- UInt64(limits.maxQueuedPacketsAge) * 32768
    var pending = log.filter { limits.maxQueuedPacketsAge == 0xFFFFF || $0.timestamp >= oldest }
    pending = Array(pending.suffix(Int(limits.maxQueuedPackets) * 16))
    // Queued events go out until the central's next init says it has them (no Duo ack here).
    log = pending
    link = .eventsStarted
    func startCount(_ index: Int, _ current: UInt32) -> UInt32 {
      pending.first { $0.buttonIndex == index }.map { $0.count &- 1 } ?? current
    }
    let response = InitButtonEventsDuoResponse(
      hasQueuedEvents: !pending.isEmpty, timestamp: clock,
      eventCounts: (startCount(0, eventCount), startCount(1, smallEventCount)), bootID: sameBoot ? nil : bootID)
    duoEncoder = DuoEventEncoder(eventCounts: [UInt64(response.eventCounts.0), UInt64(response.eventCounts.1)])
    var out = send(.initButtonEventsDuoResponse(response))
    for (index, event) in pending.enumerated() {
      out += sendDuo(event, wasQueued: true, wasQueuedLast: index == pending.count - 1)
    }
    return out
  }

  private mutating func endLink(_ reason: DisconnectReason) -> [[UInt8]] {
    let out = channel != nil ? send(.disconnectedVerifiedLink(reason: reason.rawValue)) : []
    link = .connected
    channel = nil
    return out
  }

  private mutating func send(_ message: FromButtonMessage) -> [[UInt8]] { sendBody(message.encoded()) }

  private mutating func sendBody(_ body: [UInt8]) -> [[UInt8]] {
    guard var current = channel else { return [] }
    let packet = current.seal(body)
    channel = current
    return frame(packet)
  }

  private func frame(_ packet: [UInt8], newlyAssigned: Bool = false) -> [[UInt8]] {
    PacketFraming.headered.pieces(packet, connectionID: connectionID, newlyAssigned: newlyAssigned, mtu: mtu)
  }

  private func newConnectionID() -> UInt8 { random.bytes(1)[0] % 31 + 1 }

  /// The smallest count above `count` whose residue mod 4 is `residue`.
  static func next(after count: UInt32, residue: UInt32) -> UInt32 {
    count &+ ((residue &+ 4 &- (count % 4) &- 1) % 4) &+ 1
  }
}
