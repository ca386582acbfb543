/// The Ed25519 public keys whose signature makes a button genuine. Release code uses `.shortcutLabs`;
/// a simulator's own key can only come in through `init(testOnlyKeys:)`, never from configuration.
public struct TrustedFactoryKeys: Sendable, Equatable {
  public let keys: [[UInt8]]

  /// Shortcut Labs' factory keys for Flic 2 / Duo and for Twist, as published in pyflic-ble
  /// (const.py: FLIC2_ED25519_PUBLIC_KEY, TWIST_ED25519_PUBLIC_KEY).
  public static let shortcutLabs = TrustedFactoryKeys(keys: [
    hex("d33f2440dd54b31b2e1dcf40132efa41d8f8a7474168df4008f5a95fb3b0d022"),
    hex("a8b7df10434f565069e4131f5b13f1d9056faf2b61cf929b05d02d630bdaf48b"),
  ])

  private init(keys: [[UInt8]]) { self.keys = keys }

  /// For tests and the simulator only: trusts exactly these keys (32 bytes each).
  public init(testOnlyKeys: [[UInt8]]) { self.keys = testOnlyKeys }

  private static func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
      let next = text.index(index, offsetBy: 2)
      bytes.append(UInt8(text[index..<next], radix: 16)!)
      index = next
    }
    return bytes
  }
}
