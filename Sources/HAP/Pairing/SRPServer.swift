import Crypto

/// The accessory's side of SRP-6a (RFC 5054 group 3072, SHA-512, username "Pair-Setup", the
/// setup code as password), as HAP's pair-setup uses it.
struct SRPServer {
  static let username = SRPGroup.username

  let salt: [UInt8]
  private let verifier: GMPInteger
  private let secret: GMPInteger
  /// B, padded to the group's length.
  let publicKey: [UInt8]

  init(code: HAPSetupCode, salt: [UInt8] = Self.randomBytes(16), secret: [UInt8] = Self.randomBytes(32)) {
    self.salt = salt
    let x = SRPGroup.passwordExponent(code: code, salt: salt)
    verifier = SRPGroup.g.power(x, modulus: SRPGroup.N)
    self.secret = GMPInteger(bigEndian: secret)
    let B = (SRPGroup.multiplier * verifier + SRPGroup.g.power(self.secret, modulus: SRPGroup.N)) % SRPGroup.N
    publicKey = B.padded(to: SRPGroup.length)
  }

  /// Checks the controller's proof M1 for its public key A; on success the session key K
  /// (64 bytes) and the accessory's proof M2 = H(A | M1 | K).
  func verify(clientPublicKey: [UInt8], clientProof: [UInt8]) -> (sessionKey: [UInt8], proof: [UInt8])? {
    let A = GMPInteger(bigEndian: clientPublicKey)
    guard !(A % SRPGroup.N).isZero else { return nil }  // RFC 5054: abort on A mod N == 0
    let u = SRPGroup.scrambler(A, GMPInteger(bigEndian: publicKey))
    guard !u.isZero else { return nil }
    let S = (A * verifier.power(u, modulus: SRPGroup.N)).power(secret, modulus: SRPGroup.N)
    // Padded like aiohomekit and Apple's controllers (differs from unpadded 1 time in 256).
    let paddedA = A.padded(to: SRPGroup.length)
    let K = Self.hash(S.padded(to: SRPGroup.length))
    let expected = SRPGroup.controllerProof(salt: salt, A: paddedA, B: publicKey, K: K)
    guard constantTimeEqual(expected, clientProof) else { return nil }
    return (K, SRPGroup.accessoryProof(A: paddedA, controllerProof: clientProof, K: K))
  }

  static func hash(_ bytes: [UInt8]) -> [UInt8] { SRPGroup.hash(bytes) }

  static func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
  }
}

func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
  guard a.count == b.count else { return false }
  return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
}
