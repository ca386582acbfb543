/// Builds one packet: the u16 little-endian length prefix, the opcode, then packed
/// little-endian fields.
struct ByteWriter {
  private(set) var body: [UInt8]

  init(opcode: UInt8) { body = [opcode] }

  mutating func u8(_ value: UInt8) { body.append(value) }
  mutating func i8(_ value: Int8) { body.append(UInt8(bitPattern: value)) }
  mutating func bool(_ value: Bool) { body.append(value ? 1 : 0) }

  mutating func little<T: FixedWidthInteger>(_ value: T) {
    for shift in 0..<MemoryLayout<T>.size { body.append(UInt8(truncatingIfNeeded: value >> (8 * shift))) }
  }

  mutating func u16(_ value: UInt16) { little(value) }
  mutating func i16(_ value: Int16) { little(value) }
  mutating func u32(_ value: UInt32) { little(value) }
  mutating func i64(_ value: Int64) { little(value) }
  mutating func address(_ value: BluetoothAddress) { body.append(contentsOf: value.wireBytes) }

  /// A fixed 16-byte text field with its length byte; longer text is cut at 16 bytes.
  mutating func fixedString(_ text: String) {
    let utf8 = Array(text.utf8.prefix(16))
    u8(UInt8(utf8.count))
    body.append(contentsOf: utf8)
    body.append(contentsOf: repeatElement(0, count: 16 - utf8.count))
  }

  /// Exactly 16 bytes: shorter input is padded with zeros, longer is cut.
  mutating func uuid(_ bytes: [UInt8]) {
    let prefix = bytes.prefix(16)
    body.append(contentsOf: prefix)
    body.append(contentsOf: repeatElement(0, count: 16 - prefix.count))
  }

  /// The framed packet: length (opcode and fields) then the body.
  var framed: [UInt8] {
    let length = UInt16(truncatingIfNeeded: body.count)
    return [UInt8(length & 0xff), UInt8(length >> 8)] + body
  }
}
