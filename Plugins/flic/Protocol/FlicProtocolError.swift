/// Why bytes from a peer are not a valid flicd packet. A client drops the connection and
/// reconnects; it never traps.
public enum FlicProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A frame whose length prefix is 0: every packet has at least an opcode.
  case emptyPacket
  /// A frame longer than the receiver accepts.
  case frameTooLong(length: Int, maximum: Int)
  /// Fewer bytes than the opcode's fields need.
  case packetTooShort(opcode: UInt8, length: Int, needed: Int)
  /// An enum or string-length field out of its range.
  case invalidEnum(opcode: UInt8, field: String, value: UInt8)
  case stringTooLong(opcode: UInt8, field: String, length: Int)

  public var description: String {
    switch self {
    case .emptyPacket: "empty packet (length 0)"
    case .frameTooLong(let length, let maximum): "packet length \(length) exceeds the limit of \(maximum) bytes"
    case .packetTooShort(let opcode, let length, let needed):
      "packet with opcode \(opcode) has \(length) bytes, needs \(needed)"
    case .invalidEnum(let opcode, let field, let value): "opcode \(opcode): \(field) has invalid value \(value)"
    case .stringTooLong(let opcode, let field, let length):
      "opcode \(opcode): \(field) length \(length) exceeds 16"
    }
  }
}
