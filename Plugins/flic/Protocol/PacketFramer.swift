/// Splits a TCP byte stream into packets: a u16 little-endian length, then that many bytes
/// (opcode and fields). Feed it bytes as they arrive and take complete packets out.
public struct PacketFramer: Sendable {
  /// Frames longer than this are refused (the u16 prefix allows up to 65535).
  public let maximumLength: Int
  private var buffer: [UInt8] = []
  private var start = 0

  public init(maximumLength: Int = Int(UInt16.max)) {
    self.maximumLength = maximumLength
  }

  /// Bytes received but not yet returned as a packet.
  public var bufferedByteCount: Int { buffer.count - start }

  public mutating func append(_ bytes: some Sequence<UInt8>) {
    buffer.append(contentsOf: bytes)
  }

  /// The next complete packet body (opcode and fields), nil when more bytes are needed.
  /// Throws on a length of 0 or above `maximumLength`; the stream is then unusable.
  public mutating func nextPacket() throws(FlicProtocolError) -> [UInt8]? {
    guard bufferedByteCount >= 2 else { return nil }
    let length = Int(buffer[start]) | Int(buffer[start + 1]) << 8
    guard length > 0 else { throw .emptyPacket }
    guard length <= maximumLength else { throw .frameTooLong(length: length, maximum: maximumLength) }
    guard bufferedByteCount >= 2 + length else { return nil }
    let packet = Array(buffer[(start + 2)..<(start + 2 + length)])
    start += 2 + length
    // Compact now and then instead of shifting the array on every packet.
    if start > 4096 || start == buffer.count {
      buffer.removeFirst(start)
      start = 0
    }
    return packet
  }
}
