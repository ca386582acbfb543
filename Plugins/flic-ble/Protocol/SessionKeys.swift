import Crypto

/// What full verify derives from the X25519 shared secret: the verifier that proves the central
/// knows the secret, the session's MAC key, and the pairing that later quick verifies use.
public struct FullVerifyKeys: Sendable, Equatable {
  public let fullVerifySecret: [UInt8]
  public let verifier: [UInt8]
  public let sessionKey: [UInt8]
  public let pairing: Pairing

  /// `flags` is the flags byte of FullVerifyRequest2 (0x80 when the central supports Duo, 0 for a
  /// Twist); `variant` is the signature variant found while checking the factory signature.
  public init(sharedSecret: [UInt8], variant: UInt8, buttonRandom: [UInt8], clientRandom: [UInt8], flags: UInt8) {
    let secret = Array(SHA256.hash(data: sharedSecret + [variant] + buttonRandom + clientRandom + [flags]))
    func label(_ text: String) -> [UInt8] {
      Array(HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: SymmetricKey(data: secret)))
    }
    fullVerifySecret = secret
    verifier = Array(label("AT").prefix(16))
    sessionKey = Array(label("SK").prefix(16))
    let material = label("PK")
    let identifier = (0..<4).reduce(UInt32(0)) { $0 | UInt32(material[$1]) << (8 * UInt32($1)) }
    pairing = Pairing(identifier: identifier, key: Array(material[4..<20]))
  }
}

/// A pairing as the button and the central both store it: 32-bit identifier, 128-bit key.
public struct Pairing: Sendable, Equatable, Hashable {
  public let identifier: UInt32
  public let key: [UInt8]

  public init(identifier: UInt32, key: [UInt8]) {
    self.identifier = identifier
    self.key = key
  }

  /// Quick verify's session key: Chaskey under the pairing key over the central's 7 random bytes,
  /// the request's flags byte and the button's 8 random bytes.
  public func quickVerifySessionKey(clientRandom: [UInt8], flags: UInt8, buttonRandom: [UInt8]) -> [UInt8] {
    ChaskeyKey(key).block(clientRandom.fixedSize(7) + [flags] + buttonRandom.fixedSize(8))
  }
}
