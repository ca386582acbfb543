/// A Bluetooth device address as people write it, `80:e4:da:71:b6:8e`. flicd sends the six
/// bytes in reverse order, least significant first.
public struct BluetoothAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The bytes in the order they are written, most significant first.
  public let bytes: [UInt8]

  /// Six bytes, most significant first.
  public init?(bytes: [UInt8]) {
    guard bytes.count == 6 else { return nil }
    self.bytes = bytes
  }

  /// Parses `aa:bb:cc:dd:ee:ff` (colons or dashes, any case).
  public init?(_ text: String) {
    let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == "-" })
    guard parts.count == 6 else { return nil }
    var bytes: [UInt8] = []
    for part in parts {
      guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
      bytes.append(byte)
    }
    self.bytes = bytes
  }

  /// The bytes as they go on the wire: reversed.
  public var wireBytes: [UInt8] { bytes.reversed() }

  /// From exactly six wire bytes (the reader checks the count).
  init(wireBytes: ArraySlice<UInt8>) { bytes = wireBytes.reversed() }

  public var description: String {
    bytes.map { byte in
      let hex = String(byte, radix: 16)
      return byte < 0x10 ? "0" + hex : hex
    }.joined(separator: ":")
  }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }
}
