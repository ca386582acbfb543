/// Reads packed little-endian fields from one packet; every read checks the bounds and throws
/// instead of trapping, because the bytes come from a peer.
struct ByteReader {
  let bytes: [UInt8]
  let opcode: UInt8
  private(set) var offset: Int

  init(_ bytes: [UInt8], opcode: UInt8, offset: Int = 1) {
    self.bytes = bytes
    self.opcode = opcode
    self.offset = offset
  }

  var remaining: Int { bytes.count - offset }

  mutating func take(_ count: Int) throws(FlicProtocolError) -> ArraySlice<UInt8> {
    guard count >= 0, remaining >= count else {
      throw .packetTooShort(opcode: opcode, length: bytes.count, needed: offset + count)
    }
    defer { offset += count }
    return bytes[offset..<offset + count]
  }

  mutating func u8() throws(FlicProtocolError) -> UInt8 { try take(1).first! }
  mutating func i8() throws(FlicProtocolError) -> Int8 { Int8(bitPattern: try u8()) }
  mutating func bool() throws(FlicProtocolError) -> Bool { try u8() != 0 }

  mutating func unsigned<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) throws(FlicProtocolError) -> T {
    let slice = try take(MemoryLayout<T>.size)
    var value: T = 0
    for (shift, byte) in slice.enumerated() { value |= T(byte) << (8 * shift) }
    return value
  }

  mutating func u16() throws(FlicProtocolError) -> UInt16 { try unsigned(UInt16.self) }
  mutating func i16() throws(FlicProtocolError) -> Int16 { Int16(bitPattern: try u16()) }
  mutating func u32() throws(FlicProtocolError) -> UInt32 { try unsigned(UInt32.self) }
  mutating func i64() throws(FlicProtocolError) -> Int64 { Int64(bitPattern: try unsigned(UInt64.self)) }

  mutating func address() throws(FlicProtocolError) -> BluetoothAddress {
    BluetoothAddress(wireBytes: try take(6))
  }

  /// A fixed 16-byte text field preceded by its length byte.
  mutating func fixedString(_ field: String) throws(FlicProtocolError) -> String {
    let length = Int(try u8())
    let storage = try take(16)
    guard length <= 16 else { throw .stringTooLong(opcode: opcode, field: field, length: length) }
    return String(decoding: storage.prefix(length), as: UTF8.self)
  }

  mutating func uuid() throws(FlicProtocolError) -> [UInt8] { Array(try take(16)) }

  mutating func enumeration<E: RawRepresentable>(_: E.Type, _ field: String) throws(FlicProtocolError) -> E
  where E.RawValue == UInt8 {
    let raw = try u8()
    guard let value = E(rawValue: raw) else { throw .invalidEnum(opcode: opcode, field: field, value: raw) }
    return value
  }
}
