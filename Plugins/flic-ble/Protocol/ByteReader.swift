/// Reads packed little-endian fields of one Flic packet; every read checks the bounds and throws
/// instead of trapping, because the bytes come over the air.
struct ByteReader {
  let bytes: [UInt8]
  let opcode: UInt8
  private(set) var offset: Int

  /// `bytes` starts at the opcode; reading starts after it.
  init(_ bytes: [UInt8]) {
    self.bytes = bytes
    self.opcode = bytes.first ?? 0
    self.offset = 1
  }

  var remaining: Int { bytes.count - offset }

  mutating func take(_ count: Int) throws(FlicBLEError) -> [UInt8] {
    guard count >= 0, remaining >= count else {
      throw .packetTooShort(opcode: opcode, length: bytes.count, needed: offset + count)
    }
    defer { offset += count }
    return Array(bytes[offset..<offset + count])
  }

  mutating func rest() -> [UInt8] {
    defer { offset = bytes.count }
    return Array(bytes[offset...])
  }

  mutating func u8() throws(FlicBLEError) -> UInt8 { try take(1)[0] }

  /// An unsigned little-endian integer of `width` bytes (up to 8).
  mutating func unsigned(width: Int) throws(FlicBLEError) -> UInt64 {
    let field = try take(width)
    var value: UInt64 = 0
    for (shift, byte) in field.enumerated() { value |= UInt64(byte) << (8 * UInt64(shift)) }
    return value
  }

  mutating func u16() throws(FlicBLEError) -> UInt16 { UInt16(try unsigned(width: 2)) }
  mutating func u32() throws(FlicBLEError) -> UInt32 { UInt32(try unsigned(width: 4)) }
  mutating func i32() throws(FlicBLEError) -> Int32 { Int32(bitPattern: try u32()) }
}

/// Writes packed little-endian fields, starting with the opcode.
struct ByteWriter {
  private(set) var bytes: [UInt8]

  init(opcode: UInt8) { bytes = [opcode] }

  mutating func u8(_ value: UInt8) { bytes.append(value) }
  mutating func append(_ data: [UInt8]) { bytes.append(contentsOf: data) }

  mutating func unsigned(_ value: UInt64, width: Int) {
    for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
  }

  mutating func u16(_ value: UInt16) { unsigned(UInt64(value), width: 2) }
  mutating func u32(_ value: UInt32) { unsigned(UInt64(value), width: 4) }
  mutating func i32(_ value: Int32) { u32(UInt32(bitPattern: value)) }
}

extension Array where Element == UInt8 {
  /// Exactly `count` bytes: the prefix, padded with zeros. For fixed-size fields built from caller data.
  func fixedSize(_ count: Int) -> [UInt8] {
    Array(prefix(count)) + [UInt8](repeating: 0, count: Swift.max(0, count - self.count))
  }
}
