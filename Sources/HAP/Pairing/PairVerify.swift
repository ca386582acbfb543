import Crypto

/// A connection's pair-verify (M1–M4): an ephemeral X25519 exchange, signed both ways with the
/// long-term keys, which yields the session keys.
struct PairVerify {
  let accessoryEphemeral: Curve25519.KeyAgreement.PrivateKey
  let controllerEphemeral: [UInt8]
  let sharedSecret: [UInt8]
  let encryptionKey: [UInt8]

  /// M1 → M2. nil when the controller's key is not an X25519 key.
  init?(m1: [TLV8.Item]) {
    guard let key = m1[.publicKey], let controllerKey = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: key)
    else { return nil }
    accessoryEphemeral = Curve25519.KeyAgreement.PrivateKey()
    controllerEphemeral = key
    guard let shared = try? accessoryEphemeral.sharedSecretFromKeyAgreement(with: controllerKey) else { return nil }
    sharedSecret = shared.withUnsafeBytes { Array($0) }
    encryptionKey = HAPKeyDerivation.key(
      sharedSecret, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
  }

  func m2(identity: HAPAccessoryIdentity) -> [TLV8.Item] {
    let accessoryKey = Array(accessoryEphemeral.publicKey.rawRepresentation)
    let deviceID = Array(identity.deviceID.utf8)
    let signature = Array(try! identity.signingKey.signature(for: accessoryKey + deviceID + controllerEphemeral))
    let plaintext = TLV8.encode([TLV8.Item(.identifier, deviceID), TLV8.Item(.signature, signature)])
    return [
      TLV8.Item(.state, [2]), TLV8.Item(.publicKey, accessoryKey),
      TLV8.Item(.encryptedData, HAPKeyDerivation.seal(plaintext, key: encryptionKey, nonce: "PV-Msg02")),
    ]
  }

  /// M3: the identifier the controller claims (to look its pairing up), nil if M3 does not open.
  func claimedIdentifier(m3: [TLV8.Item]) -> (identifier: String, signature: [UInt8])? {
    guard let sealed = m3[.encryptedData],
      let plaintext = HAPKeyDerivation.open(sealed, key: encryptionKey, nonce: "PV-Msg03"),
      let items = try? TLV8.decode(plaintext), let identifier = items[.identifier],
      let signature = items[.signature], let name = String(validating: identifier, as: UTF8.self)
    else { return nil }
    return (name, signature)
  }

  /// M3's signature checked with the stored long-term key of `pairing`.
  func verify(signature: [UInt8], of pairing: HAPPairing) -> Bool {
    guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: pairing.publicKey) else { return false }
    let accessoryKey = Array(accessoryEphemeral.publicKey.rawRepresentation)
    return key.isValidSignature(signature, for: controllerEphemeral + Array(pairing.identifier.utf8) + accessoryKey)
  }
}
