import FlicProtocol

/// Test helpers that build wire bytes by hand, independently of the codec's writer.
func hex(_ text: String) -> [UInt8] {
  text.split(separator: " ").map { UInt8($0, radix: 16)! }
}

func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xff), UInt8((value >> 8) & 0xff)] }
func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xff) } }
func le64(_ value: Int64) -> [UInt8] { (0..<8).map { UInt8((UInt64(bitPattern: value) >> (8 * UInt64($0))) & 0xff) } }

/// A 16-byte fixed string field with its length byte.
func fixed(_ text: String) -> [UInt8] {
  let utf8 = Array(text.utf8)
  return [UInt8(utf8.count)] + utf8 + Array(repeating: 0, count: 16 - utf8.count)
}

/// Prefixes a body (opcode and fields) with its u16 length.
func framed(_ body: [UInt8]) -> [UInt8] { le16(body.count) + body }

let bedside = BluetoothAddress("80:e4:da:71:b6:8e")!
/// `bedside` as it goes on the wire.
let bedsideWire = hex("8e b6 71 da e4 80")
let hallway = BluetoothAddress("08:09:0a:0b:0c:0d")!
let hallwayWire = hex("0d 0c 0b 0a 09 08")
