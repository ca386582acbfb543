/// Why bytes from a Flic button (or, for the simulator, from a central) are refused. Every decoder
/// throws one of these instead of trapping: the bytes come over the air.
public enum FlicBLEError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A packet with no bytes where a header or opcode must be.
  case emptyPacket
  /// Fewer bytes than the message's fields need.
  case packetTooShort(opcode: UInt8, length: Int, needed: Int)
  /// Reassembled fragments longer than any Flic packet (128 bytes).
  case packetTooLong(length: Int, maximum: Int)
  /// An opcode this side does not know.
  case unknownOpcode(UInt8)
  /// A field outside its range (a name longer than 23 bytes, an event code out of the table).
  case invalidField(opcode: UInt8, field: String, value: Int)
  /// The 5-byte Chaskey tag did not match the expected counter and key.
  case badMAC(opcode: UInt8, counter: UInt64)

  public var description: String {
    switch self {
    case .emptyPacket: "empty packet"
    case .packetTooShort(let opcode, let length, let needed):
      "packet with opcode \(opcode) has \(length) bytes, needs \(needed)"
    case .packetTooLong(let length, let maximum): "packet of \(length) bytes exceeds \(maximum)"
    case .unknownOpcode(let opcode): "unknown opcode \(opcode)"
    case .invalidField(let opcode, let field, let value): "opcode \(opcode): \(field) has invalid value \(value)"
    case .badMAC(let opcode, let counter): "opcode \(opcode): MAC mismatch at packet counter \(counter)"
    }
  }
}
