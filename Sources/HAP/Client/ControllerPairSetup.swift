import Crypto

/// Pair-setup as the controller (M1–M6), one message at a time and without I/O: what to send
/// next from what the accessory answered. Stores nothing: the accessory's pairing id and
/// long-term key are the result.
struct ControllerPairSetup {
  let code: HAPSetupCode
  let controller: HAPControllerIdentity
  private var srp: SRPClient?

  init(code: HAPSetupCode, controller: HAPControllerIdentity) {
    self.code = code
    self.controller = controller
  }

  static let m1 = [TLV8.Item(.state, [1]), TLV8.Item(.method, [HAPPairingMethod.pairSetup.rawValue])]

  /// M2 (salt, B) → M3 (A, proof).
  mutating func m3(answering m2: [TLV8.Item]) throws(HAPClientError) -> [TLV8.Item] {
    try checkAnswer(m2, step: 2)
    guard let salt = m2[.salt], let B = m2[.publicKey] else {
      throw .malformedResponse("pair-setup M2 without salt or public key")
    }
    guard let srp = SRPClient(code: code, salt: salt, accessoryPublicKey: B) else {
      throw .malformedResponse("pair-setup M2's public key is not usable for SRP")
    }
    self.srp = srp
    return [TLV8.Item(.state, [3]), TLV8.Item(.publicKey, srp.publicKey), TLV8.Item(.proof, srp.proof)]
  }

  /// M4 (the accessory's proof) → M5 (our identifier, long-term key and signature, sealed).
  func m5(answering m4: [TLV8.Item]) throws(HAPClientError) -> [TLV8.Item] {
    try checkAnswer(m4, step: 4)
    guard let srp else { throw .malformedResponse("pair-setup M4 before M2") }
    guard let proof = m4[.proof], srp.isValid(accessoryProof: proof) else {
      throw .accessoryNotAuthenticated("its pair-setup proof (M4) is wrong")
    }
    let K = srp.sessionKey
    let x = HAPKeyDerivation.key(K, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info")
    let identifier = Array(controller.pairingID.utf8)
    let ltpk = controller.publicKey
    let signature = Array(try! controller.signingKey.signature(for: x + identifier + ltpk))
    let plaintext = TLV8.encode([
      TLV8.Item(.identifier, identifier), TLV8.Item(.publicKey, ltpk), TLV8.Item(.signature, signature),
    ])
    let key = HAPKeyDerivation.key(K, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
    return [
      TLV8.Item(.state, [5]), TLV8.Item(.encryptedData, HAPKeyDerivation.seal(plaintext, key: key, nonce: "PS-Msg05")),
    ]
  }

  /// M6: the accessory's device id and long-term key, checked against its signature.
  func accessory(answering m6: [TLV8.Item]) throws(HAPClientError) -> HAPPairedAccessory {
    try checkAnswer(m6, step: 6)
    guard let K = srp?.sessionKey else { throw .malformedResponse("pair-setup M6 before M2") }
    let key = HAPKeyDerivation.key(K, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
    guard let sealed = m6[.encryptedData], let plaintext = HAPKeyDerivation.open(sealed, key: key, nonce: "PS-Msg06"),
      let items = try? TLV8.decode(plaintext), let identifier = items[.identifier], let ltpk = items[.publicKey],
      let signature = items[.signature], let pairingID = String(validating: identifier, as: UTF8.self)
    else { throw .accessoryNotAuthenticated("its pair-setup M6 does not decrypt to an identifier, key and signature") }
    guard let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: ltpk) else {
      throw .accessoryNotAuthenticated("its long-term key in M6 is not an Ed25519 key")
    }
    let x = HAPKeyDerivation.key(K, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
    guard publicKey.isValidSignature(signature, for: x + identifier + ltpk) else {
      throw .accessoryNotAuthenticated("its M6 signature does not verify")
    }
    return HAPPairedAccessory(pairingID: pairingID, publicKey: ltpk)
  }
}

/// An accessory's pairing answer: its TLV error thrown, its state checked.
func checkAnswer(_ items: [TLV8.Item], step: Int) throws(HAPClientError) {
  if let code = items.byte(.error) {
    throw .pairing(HAPPairingError(rawValue: code) ?? .unknown, step: step)
  }
  guard items.byte(.state) == UInt8(step) else {
    throw .malformedResponse("expected state \(step), got \(items.byte(.state).map(String.init) ?? "none")")
  }
}
