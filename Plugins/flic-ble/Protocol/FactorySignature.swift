import Crypto

/// The genuineness check of FullVerifyResponse1: an Ed25519 signature by the manufacturer over the
/// button's address, address type and X25519 key (39 bytes). The two low bits of signature byte
/// 32 are replaced on the air; the value that makes the signature verify is the variant, which
/// enters the key derivation.
public enum FactorySignature {
  /// The signed 39 bytes.
  public static func message(address: [UInt8], addressType: UInt8, publicKey: [UInt8]) -> [UInt8] {
    address.fixedSize(6) + [addressType] + publicKey.fixedSize(32)
  }

  /// The variant (0...3) under the first trusted key that verifies, or nil: not genuine.
  public static func variant(signature: [UInt8], message: [UInt8], trustedKeys: TrustedFactoryKeys) -> UInt8? {
    guard signature.count == 64 else { return nil }
    for raw in trustedKeys.keys {
      guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else { continue }
      for variant in UInt8(0)...3 {
        var candidate = signature
        candidate[32] = (candidate[32] & 0xFC) | variant
        if key.isValidSignature(candidate, for: message) { return variant }
      }
    }
    return nil
  }
}
