import Testing

@testable import HAP

/// SRP-6a's controller side against our accessory side: the same session key and proofs both
/// ways, and secrets whose A, S or K would hash differently padded and unpadded are redrawn.
@Suite struct SRPClientTests {
  static let code = HAPSetupCode("518-08-582")!

  @Test func clientAndServerAgreeOnTheKeyAndBothProofs() throws {
    for _ in 0..<8 {
      let server = SRPServer(code: Self.code)
      let client = try #require(SRPClient(code: Self.code, salt: server.salt, accessoryPublicKey: server.publicKey))
      let verified = try #require(server.verify(clientPublicKey: client.publicKey, clientProof: client.proof))
      #expect(verified.sessionKey == client.sessionKey)
      #expect(client.isValid(accessoryProof: verified.proof))
      #expect(!client.isValid(accessoryProof: [UInt8](repeating: 0, count: 64)))
    }
  }

  @Test func aWrongCodeGivesAProofTheAccessoryRefuses() throws {
    let server = SRPServer(code: Self.code)
    let client = try #require(
      SRPClient(code: HAPSetupCode("111-22-333")!, salt: server.salt, accessoryPublicKey: server.publicKey))
    #expect(server.verify(clientPublicKey: client.publicKey, clientProof: client.proof) == nil)
  }

  /// a = 1 makes A = 5: 383 zero bytes, which HAP-python would hash unpadded. The client
  /// draws again and uses the second secret.
  @Test func aSecretWhosePublicKeyHasLeadingZerosIsRedrawn() throws {
    let server = SRPServer(code: Self.code)
    // The first draw is a = 1; later ones are random (one of those may be redrawn too, about
    // 3 times in 256: never an empty list to draw from).
    var draws = 0
    let client = try #require(
      SRPClient(code: Self.code, salt: server.salt, accessoryPublicKey: server.publicKey) {
        draws += 1
        return draws == 1 ? [1] : SRPServer.randomBytes(32)
      })
    #expect(draws >= 2)
    #expect(client.publicKey.count == SRPGroup.length && client.publicKey[0] != 0)
    #expect(
      server.verify(clientPublicKey: client.publicKey, clientProof: client.proof)?.sessionKey == client.sessionKey)
  }

  @Test func anUnusableAccessoryKeyIsRefused() {
    let server = SRPServer(code: Self.code)
    #expect(SRPClient(code: Self.code, salt: server.salt, accessoryPublicKey: [0]) == nil)
    #expect(SRPClient(code: Self.code, salt: server.salt, accessoryPublicKey: SRPGroup.N.bigEndianBytes) == nil)
  }
}
