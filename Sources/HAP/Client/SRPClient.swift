/// The controller's side of SRP-6a: from the accessory's salt and B and the setup code to A,
/// the proof M1 and the session key K; then the accessory's proof M2 is checked against them.
struct SRPClient {
  /// A, padded to the group's length.
  let publicKey: [UInt8]
  /// M1.
  let proof: [UInt8]
  /// K = H(PAD(S)), 64 bytes.
  let sessionKey: [UInt8]

  /// How many secrets are tried for one whose A, S and K have no leading zero byte.
  static let maximumSecretDraws = 64

  /// nil when the accessory's B is unusable (B mod N == 0, or u == 0 for every secret drawn).
  ///
  /// Accessories differ in whether they pad A, S and K before hashing (our server and Apple's
  /// pad, HAP-python does not); a secret for which padded and unpadded are the same bytes
  /// makes the proof right for both. About 3 draws in 256 are redrawn.
  init?(
    code: HAPSetupCode, salt: [UInt8], accessoryPublicKey: [UInt8],
    drawSecret: () -> [UInt8] = { SRPServer.randomBytes(32) }
  ) {
    let N = SRPGroup.N
    let B = GMPInteger(bigEndian: accessoryPublicKey)
    guard !(B % N).isZero else { return nil }  // RFC 5054: abort on B mod N == 0
    let x = SRPGroup.passwordExponent(code: code, salt: salt)
    let base = (B - SRPGroup.multiplier * SRPGroup.g.power(x, modulus: N)) % N
    for _ in 0..<Self.maximumSecretDraws {
      let a = GMPInteger(bigEndian: drawSecret())
      let A = SRPGroup.g.power(a, modulus: N)
      let u = SRPGroup.scrambler(A, B)
      guard !u.isZero else { continue }
      let S = base.power(a + u * x, modulus: N)
      let paddedA = A.padded(to: SRPGroup.length)
      let K = SRPGroup.hash(S.padded(to: SRPGroup.length))
      guard paddedA[0] != 0, S.bigEndianBytes.count == SRPGroup.length, K[0] != 0 else { continue }
      publicKey = paddedA
      sessionKey = K
      // B exactly as the accessory sent it: it hashes its own bytes.
      proof = SRPGroup.controllerProof(salt: salt, A: paddedA, B: accessoryPublicKey, K: K)
      return
    }
    return nil
  }

  /// Whether M2 proves the accessory knew the code too.
  func isValid(accessoryProof: [UInt8]) -> Bool {
    constantTimeEqual(SRPGroup.accessoryProof(A: publicKey, controllerProof: proof, K: sessionKey), accessoryProof)
  }
}
