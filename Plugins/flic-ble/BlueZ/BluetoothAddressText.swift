/// A Bluetooth address as people write it (`80:E4:DA:71:B6:8E`) and as a Flic 2 sends it
/// (six bytes, least significant first).
public struct BluetoothAddressText: Sendable, Hashable, CustomStringConvertible {
  /// Most significant byte first, as written.
  public let bytes: [UInt8]

  public init?(_ text: String) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 6, parts.allSatisfy({ $0.count == 2 }) else { return nil }
    let values = parts.compactMap { UInt8($0, radix: 16) }
    guard values.count == 6 else { return nil }
    bytes = values
  }

  public init(littleEndian: [UInt8]) { bytes = littleEndian.reversed() }

  /// The order of FullVerifyResponse1's address field.
  public var littleEndian: [UInt8] { bytes.reversed() }

  public var description: String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: ":")
  }
}
