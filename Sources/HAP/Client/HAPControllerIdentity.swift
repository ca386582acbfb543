import Crypto

/// Who this controller is to every accessory it pairs with: its pairing id and Ed25519
/// long-term key pair. The caller keeps it (a new one is a new controller).
public struct HAPControllerIdentity: Sendable {
  /// UTF-8 text, a UUID by convention (HAP-python refuses anything else).
  public var pairingID: String
  public var signingKey: Curve25519.Signing.PrivateKey
  public init(pairingID: String, signingKey: Curve25519.Signing.PrivateKey) {
    self.pairingID = pairingID
    self.signingKey = signingKey
  }

  /// The 32-byte long-term public key (LTPK).
  public var publicKey: [UInt8] { Array(signingKey.publicKey.rawRepresentation) }

  /// A random version-4 UUID as pairing id and a fresh key pair.
  public static func generate() -> HAPControllerIdentity {
    var bytes = SRPServer.randomBytes(16)
    bytes[6] = bytes[6] & 0x0F | 0x40
    bytes[8] = bytes[8] & 0x3F | 0x80
    let hex = bytes.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
    let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
      String(hex.dropFirst(range.lowerBound).prefix(range.count))
    }
    return HAPControllerIdentity(pairingID: groups.joined(separator: "-"), signingKey: Curve25519.Signing.PrivateKey())
  }
}
