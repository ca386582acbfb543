/// Splits a packet into GATT writes/notifications and joins them again. A packet is the opcode,
/// its fields and (after verify) the 5-byte MAC; the Flic 2 / Duo framing prefixes each piece
/// with a `FrameHeader`, the Twist sends the packet as it is.
public enum PacketFraming: Sendable, Equatable {
  case headered
  case twist

  /// The largest reassembled packet a button sends or accepts.
  public static let maximumPacketLength = 128

  /// The pieces of `packet` for an ATT MTU of `mtu`: each carries at most `mtu - 3` bytes (the ATT
  /// header takes 3), of which the frame header takes one. Only the last piece clears the fragment bit.
  public func pieces(_ packet: [UInt8], connectionID: UInt8, newlyAssigned: Bool = false, mtu: Int) -> [[UInt8]] {
    guard self == .headered else { return [packet] }
    let room = Swift.max(1, mtu - 4)
    var result: [[UInt8]] = []
    var offset = 0
    repeat {
      let end = Swift.min(packet.count, offset + room)
      let header = FrameHeader(
        connectionID: connectionID, newlyAssigned: newlyAssigned, moreFragments: end < packet.count)
      result.append([header.byte] + packet[offset..<end])
      offset = end
    } while offset < packet.count
    return result
  }
}

/// Joins fragments of a headered stream into packets. Bytes are untrusted: an empty piece or a
/// packet that grows past 128 bytes is an error, after which the reassembler starts afresh.
public struct PacketReassembler: Sendable {
  public let framing: PacketFraming
  private var buffer: [UInt8] = []

  public init(framing: PacketFraming) { self.framing = framing }

  /// A complete packet with the header of its last piece, or nil while fragments are outstanding.
  public mutating func receive(_ piece: [UInt8]) throws(FlicBLEError) -> (header: FrameHeader?, packet: [UInt8])? {
    guard framing == .headered else {
      guard !piece.isEmpty else { throw .emptyPacket }
      guard piece.count <= PacketFraming.maximumPacketLength else {
        throw .packetTooLong(length: piece.count, maximum: PacketFraming.maximumPacketLength)
      }
      return (nil, piece)
    }
    guard let first = piece.first else { throw .emptyPacket }
    let header = FrameHeader(byte: first)
    let body = piece.dropFirst()
    guard buffer.count + body.count <= PacketFraming.maximumPacketLength else {
      let length = buffer.count + body.count
      reset()
      throw .packetTooLong(length: length, maximum: PacketFraming.maximumPacketLength)
    }
    buffer.append(contentsOf: body)
    if header.moreFragments {
      return nil
    }
    let packet = buffer
    reset()
    guard !packet.isEmpty else { throw .emptyPacket }
    return (header, packet)
  }

  public mutating func reset() {
    buffer = []
  }
}
