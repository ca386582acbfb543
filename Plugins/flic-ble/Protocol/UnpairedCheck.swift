import Crypto

/// Whether a refused quick verify is real. Anyone can send QuickVerifyNegativeResponse (it carries
/// no MAC), so before a central forgets a pairing it runs full verify 1 again (the factory
/// signature proves the button) and asks TestIfReallyUnpaired with a token derived from the
/// stored pairing. Only the genuine button can answer: "NE" over the token if it has no such
/// pairing, "EX" over the pairing if it does. The hash input ends with flags 0: the request has
/// no flags byte.
public struct UnpairedCheck: Sendable, Equatable {
  public let keys: FullVerifyKeys

  public init(sharedSecret: [UInt8], variant: UInt8, buttonRandom: [UInt8], clientRandom: [UInt8]) {
    keys = FullVerifyKeys(
      sharedSecret: sharedSecret, variant: variant, buttonRandom: buttonRandom, clientRandom: clientRandom, flags: 0)
  }

  /// Proves to a button that has the pairing that the central has it too.
  public func pairingToken(for pairing: Pairing) -> [UInt8] {
    hmac("PT", Self.pairingBytes(pairing))
  }

  /// The answer of a button without the pairing.
  public func notExisting(token: [UInt8]) -> [UInt8] { hmac("NE", token.fixedSize(16)) }

  /// The answer of a button that still has the pairing.
  public func existing(_ pairing: Pairing) -> [UInt8] { hmac("EX", Array(Self.pairingBytes(pairing).prefix(16))) }

  /// The 20 stored bytes: identifier (little-endian) and key.
  static func pairingBytes(_ pairing: Pairing) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: pairing.identifier >> (8 * UInt32($0))) } + pairing.key.fixedSize(16)
  }

  private func hmac(_ label: String, _ data: [UInt8]) -> [UInt8] {
    Array(
      HMAC<SHA256>.authenticationCode(for: Array(label.utf8) + data, using: SymmetricKey(data: keys.fullVerifySecret))
        .prefix(16))
  }
}
