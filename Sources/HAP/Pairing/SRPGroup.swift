import Crypto

/// RFC 5054's 3072-bit group (generator 5), the one HAP's pair-setup uses, and the SRP-6a
/// formulas both roles share (accessory: `SRPServer`, controller: `SRPClient`).
enum SRPGroup {
  // Computed, not stored: a GMPInteger is not Sendable, and a pair-setup uses these a few times.
  static var N: GMPInteger {
    GMPInteger(
      hex:
        """
        FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD\
        EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED\
        EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F\
        83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B\
        E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510\
        15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7\
        ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C\
        BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF
        """)!
  }
  static var g: GMPInteger { GMPInteger(5) }
  /// Bytes of N: every padded value is this long.
  static let length = 384
  static let username = "Pair-Setup"

  /// x = H(salt | H("Pair-Setup:" | code)), the password's exponent.
  static func passwordExponent(code: HAPSetupCode, salt: [UInt8]) -> GMPInteger {
    let inner = hash(Array("\(username):\(code.description)".utf8))
    return GMPInteger(bigEndian: hash(salt + inner))
  }

  /// k = H(N | PAD(g)).
  static var multiplier: GMPInteger { GMPInteger(bigEndian: hash(N.bigEndianBytes + g.padded(to: length))) }

  /// u = H(PAD(A) | PAD(B)).
  static func scrambler(_ A: GMPInteger, _ B: GMPInteger) -> GMPInteger {
    GMPInteger(bigEndian: hash(A.padded(to: length) + B.padded(to: length)))
  }

  /// The controller's proof M1 = H(H(N) xor H(g) | H(I) | salt | A | B | K), A and B as sent.
  static func controllerProof(salt: [UInt8], A: [UInt8], B: [UInt8], K: [UInt8]) -> [UInt8] {
    let hN = hash(N.bigEndianBytes)
    let hg = hash(g.bigEndianBytes)
    let hI = hash(Array(username.utf8))
    return hash(zip(hN, hg).map { $0 ^ $1 } + hI + salt + A + B + K)
  }

  /// The accessory's proof M2 = H(A | M1 | K).
  static func accessoryProof(A: [UInt8], controllerProof: [UInt8], K: [UInt8]) -> [UInt8] {
    hash(A + controllerProof + K)
  }

  static func hash(_ bytes: [UInt8]) -> [UInt8] { Array(SHA512.hash(data: bytes)) }
}
