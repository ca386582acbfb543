import Crypto

/// Pair-verify as the controller (M1–M4) without I/O: an ephemeral X25519 exchange, the
/// accessory's signature checked with its stored long-term key, ours made with our own; the
/// session keys once M4 says yes.
struct ControllerPairVerify {
  let controller: HAPControllerIdentity
  let accessory: HAPPairedAccessory
  private let ephemeral = Curve25519.KeyAgreement.PrivateKey()
  private var sharedSecret: [UInt8]?

  init(controller: HAPControllerIdentity, accessory: HAPPairedAccessory) {
    self.controller = controller
    self.accessory = accessory
  }

  var m1: [TLV8.Item] {
    [TLV8.Item(.state, [1]), TLV8.Item(.publicKey, Array(ephemeral.publicKey.rawRepresentation))]
  }

  /// M2 (its ephemeral key, its sealed identity and signature) → M3 (ours).
  mutating func m3(answering m2: [TLV8.Item]) throws(HAPClientError) -> [TLV8.Item] {
    try checkAnswer(m2, step: 2)
    guard let theirKey = m2[.publicKey], let sealed = m2[.encryptedData],
      let theirPublic = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: theirKey),
      let shared = try? ephemeral.sharedSecretFromKeyAgreement(with: theirPublic)
    else { throw .malformedResponse("pair-verify M2 without a usable X25519 key or encrypted data") }
    let secret = shared.withUnsafeBytes { Array($0) }
    let key = HAPKeyDerivation.key(secret, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
    guard let plaintext = HAPKeyDerivation.open(sealed, key: key, nonce: "PV-Msg02"),
      let items = try? TLV8.decode(plaintext), let identifier = items[.identifier], let signature = items[.signature]
    else { throw .accessoryNotAuthenticated("its pair-verify M2 does not decrypt") }
    guard identifier == Array(accessory.pairingID.utf8) else {
      throw .accessoryNotAuthenticated(
        "it is \(String(decoding: identifier, as: UTF8.self)), not \(accessory.pairingID)")
    }
    let ourKey = Array(ephemeral.publicKey.rawRepresentation)
    guard let ltpk = try? Curve25519.Signing.PublicKey(rawRepresentation: accessory.publicKey),
      ltpk.isValidSignature(signature, for: theirKey + identifier + ourKey)
    else { throw .accessoryNotAuthenticated("its pair-verify signature does not verify with the stored key") }
    sharedSecret = secret
    let ourIdentifier = Array(controller.pairingID.utf8)
    let ourSignature = Array(try! controller.signingKey.signature(for: ourKey + ourIdentifier + theirKey))
    let sealedProof = HAPKeyDerivation.seal(
      TLV8.encode([TLV8.Item(.identifier, ourIdentifier), TLV8.Item(.signature, ourSignature)]), key: key,
      nonce: "PV-Msg03")
    return [TLV8.Item(.state, [3]), TLV8.Item(.encryptedData, sealedProof)]
  }

  /// M4: the session keys, or the accessory's error (authentication: it does not know us).
  func sessionKeys(answering m4: [TLV8.Item]) throws(HAPClientError) -> HAPSessionKeys {
    try checkAnswer(m4, step: 4)
    guard let sharedSecret else { throw .malformedResponse("pair-verify M4 before M2") }
    return HAPSessionKeys(sharedSecret: sharedSecret)
  }
}
