/// Appends little-endian fields to a frame.
public struct FrameWriter: Sendable {
  public private(set) var bytes: [UInt8] = []

  public init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

  public mutating func u8(_ value: UInt8) { bytes.append(value) }
  public mutating func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
  public mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
  public mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
  public mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }
  public mutating func f64(_ value: Double) { u64(value.bitPattern) }
  public mutating func bool(_ value: Bool) { u8(value ? 1 : 0) }
  /// A u32 length, then UTF-8 bytes.
  public mutating func string(_ value: String) {
    u32(UInt32(value.utf8.count))
    bytes.append(contentsOf: value.utf8)
  }
}

/// Reads little-endian fields from an untrusted frame; every read is bounds-checked.
public struct FrameReader {
  let bytes: [UInt8]
  public private(set) var offset: Int

  public init(_ bytes: [UInt8], offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
  }

  public var remaining: Int { bytes.count - offset }

  mutating func take(_ count: Int) throws(WireError) -> ArraySlice<UInt8> {
    guard count >= 0, count <= remaining else {
      throw .truncated("needs \(count) more bytes at offset \(offset), has \(remaining)")
    }
    defer { offset += count }
    return bytes[offset..<offset + count]
  }

  mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(WireError) -> T {
    let slice = try take(MemoryLayout<T>.size)
    var value: T = 0
    for (shift, byte) in slice.enumerated() { value |= T(byte) << (shift * 8) }
    return value
  }

  public mutating func u8() throws(WireError) -> UInt8 { try integer(UInt8.self) }
  public mutating func u16() throws(WireError) -> UInt16 { try integer(UInt16.self) }
  public mutating func u32() throws(WireError) -> UInt32 { try integer(UInt32.self) }
  public mutating func u64() throws(WireError) -> UInt64 { try integer(UInt64.self) }
  public mutating func i64() throws(WireError) -> Int64 { Int64(bitPattern: try u64()) }
  public mutating func f64() throws(WireError) -> Double { Double(bitPattern: try u64()) }
  public mutating func bool() throws(WireError) -> Bool {
    let byte = try u8()
    guard byte <= 1 else { throw .invalid("boolean byte \(byte)") }
    return byte == 1
  }
  public mutating func string(maxBytes: Int = WireProtocol.maximumFrameBytes) throws(WireError) -> String {
    let count = Int(try u32())
    guard count <= maxBytes else { throw .invalid("string of \(count) bytes exceeds \(maxBytes)") }
    let slice = try take(count)
    guard let text = String(validating: slice, as: UTF8.self) else { throw .invalid("string is not UTF-8") }
    return text
  }
  /// Throws unless the whole frame was read.
  public func expectEnd() throws(WireError) {
    guard remaining == 0 else { throw .invalid("\(remaining) unexpected trailing bytes") }
  }
}
