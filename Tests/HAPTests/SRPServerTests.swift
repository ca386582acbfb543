import Testing

@testable import HAP

/// SRP-6a's server side against values from an independent implementation (Python's integers,
/// RFC 5054 with HAP's padding; Scripts/srp_reference_vector.py): B, S and A each with leading
/// zero bytes, so PAD() is exercised.
@Suite struct SRPServerTests {
  static let salt: [UInt8] = Array(1...16)
  static let secret = hexBytes("f4cb96bb357be4bf53622b609d81890756bbd0738da3681dec4d1dfb871402fb")
  /// The controller's A = g^1: 383 zero bytes and a 5.
  static let clientPublicKey = hexBytes(
    """
    000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
    000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
    000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
    000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
    000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
    000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
    000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
    000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000005
    """)
  static let clientProof = hexBytes(
    """
    ffde4d4372403faf850510001123f92db3181be2b2b6876bec5fd3f76628335261f8f2ed8b71a5780e83248c70d68870\
    6c260c67b107209dbf630b028b720e9e
    """)

  @Test func publicKeySessionKeyAndProofMatchTheReference() throws {
    let code = try #require(HAPSetupCode("518-08-582"))
    let started = ContinuousClock.now
    let server = SRPServer(code: code, salt: Self.salt, secret: Self.secret)
    let result = server.verify(clientPublicKey: Self.clientPublicKey, clientProof: Self.clientProof)
    print("SRP-6a server arithmetic (M2 and M4): \(ContinuousClock.now - started)")
    #expect(
      server.publicKey
        == hexBytes(
          """
          00ed536bccef55b5c8c4437093c4b111e8361820cb4ef5dca8ca2d16fa22d879b571552ea8ea94d75a6c7a12db20e2dc\
          4b8ffc42660e705f76d50f06b72f66e84bc1d4fd4ee7d8b8abb7c89683422977f37ba9a65186ea3044a57545cd3938fc\
          2860114091b83a96353a1ddbe529fd6741856b85019b6b7559f8594d238e9cdfd4b28950a6bb109ffa4c0695808b21c5\
          8332e4f49d6c78047d1e0ccea1d416901daf2a25ef9c3a3540947f0d6768032fc0f75779eb400090045ce0f1f7b293b1\
          a286f1003e50d9d08f9c0c64786b156c7b24c0230b9e36d7c20fbb85f1bbcf2170c00ca59906acdb1382f3f034d7ff25\
          7dfb8ca7bba44391c9e2314c1d37f9ee3350c5a13e608ae385ca259f071536fc1433f3fcae301d8830ce38ded163ff4a\
          023740997df31e817c1a845a888c2ead2e7ac168effdcfaa0a88e5d287dc24393be521d7de8b61ce6c38a83df35a6f78\
          90522c0164296c52a0cdd5b0a3d04d8b9e8a52f826a2b788714e1caf16e586490ddbdf65e59db20c6253c87c353db51f
          """))
    let (sessionKey, proof) = try #require(result)
    #expect(
      sessionKey
        == hexBytes(
          """
          ba856da2e9605468696b728dfd2cb00516f712b5c31d1242231e215b280b63ba671f1634c115bd0c0abeee28233a3fb5\
          2b39e6661a612ea9edc90914a219c389
          """))
    #expect(
      proof
        == hexBytes(
          """
          1e5437010bd7267b77ac6a3c6ad9fcbe844aa78494246cac4fd74886c5d5ae008d70c6f71f3dbc1d527d4f3aceff1d62\
          b6154a81585535c6aa07017a0acdd135
          """))
  }

  @Test func aWrongProofOrAZeroPublicKeyIsRefused() throws {
    let code = try #require(HAPSetupCode("518-08-582"))
    let server = SRPServer(code: code, salt: Self.salt, secret: Self.secret)
    var wrongProof = Self.clientProof
    wrongProof[0] ^= 1
    #expect(server.verify(clientPublicKey: Self.clientPublicKey, clientProof: wrongProof) == nil)
    // A ≡ 0 (mod N) would make S = 0 whatever the password: RFC 5054 says abort.
    #expect(server.verify(clientPublicKey: [UInt8](repeating: 0, count: 384), clientProof: Self.clientProof) == nil)
    #expect(server.verify(clientPublicKey: SRPGroup.N.bigEndianBytes, clientProof: Self.clientProof) == nil)
  }
}
