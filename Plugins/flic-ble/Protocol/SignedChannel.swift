/// The MAC layer of a verified session, for one side: every packet carries a 5-byte Chaskey tag
/// over its opcode and fields, keyed by the session key, with a 64-bit counter per direction
/// that starts at 0 and never repeats. A mismatch means tampering or a lost packet: the link ends.
public struct SignedChannel: Sendable {
  public static let tagLength = 5
  let key: ChaskeyKey
  let outgoing: PacketDirection
  public private(set) var sentCount: UInt64 = 0
  public private(set) var receivedCount: UInt64 = 0

  public init(sessionKey: [UInt8], outgoing: PacketDirection) {
    key = ChaskeyKey(sessionKey)
    self.outgoing = outgoing
  }

  /// `packet` with its tag appended; counts it.
  public mutating func seal(_ packet: [UInt8]) -> [UInt8] {
    defer { sentCount += 1 }
    return packet + key.tag(direction: outgoing, counter: sentCount, message: packet)
  }

  /// The packet without its tag, or `.badMAC`. A bad packet still uses up its counter, as on the
  /// button, so a replay or a dropped packet cannot be repaired by the peer.
  public mutating func open(_ packet: [UInt8]) throws(FlicBLEError) -> [UInt8] {
    guard packet.count > Self.tagLength else {
      throw .packetTooShort(opcode: packet.first ?? 0, length: packet.count, needed: Self.tagLength + 1)
    }
    let body = Array(packet.dropLast(Self.tagLength))
    let counter = receivedCount
    receivedCount += 1
    let incoming: PacketDirection = outgoing == .toButton ? .fromButton : .toButton
    guard key.tag(direction: incoming, counter: counter, message: body) == Array(packet.suffix(Self.tagLength)) else {
      throw .badMAC(opcode: body[0], counter: counter)
    }
    return body
  }
}

extension Optional where Wrapped == SignedChannel {
  /// A central's open: no session yet, or a MAC that does not verify, is the session's failure
  /// (`CentralFailure.badMAC`); the channel keeps whatever state the open left. Shared by the Flic 2/Duo and
  /// Twist centrals.
  mutating func openAsCentral(_ packet: [UInt8]) throws -> [UInt8] {
    guard var current = self else { throw CentralFailure.badMAC }
    defer { self = current }
    do {
      return try current.open(packet)
    } catch {
      if case .badMAC = error { throw CentralFailure.badMAC }
      throw error
    }
  }
}
