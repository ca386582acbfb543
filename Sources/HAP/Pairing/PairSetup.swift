import Crypto

/// One pair-setup in progress (M1–M6), owned by the connection that sent M1.
struct PairSetup {
  /// A setup left unfinished this long no longer blocks another controller.
  static let abandonedAfter = Duration.seconds(60)

  let connection: Int
  let srp: SRPServer
  let started = ContinuousClock.now
  /// K once M3's proof was right.
  var sessionKey: [UInt8]?

  /// M5: the controller's identifier and long-term key, checked against its signature; nil
  /// when anything does not decrypt or verify.
  func controllerPairing(from m5: [TLV8.Item]) -> HAPPairing? {
    guard let sessionKey, let sealed = m5[.encryptedData] else { return nil }
    let key = HAPKeyDerivation.key(sessionKey, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
    guard let plaintext = HAPKeyDerivation.open(sealed, key: key, nonce: "PS-Msg05"),
      let items = try? TLV8.decode(plaintext),
      let identifier = items[.identifier], let ltpk = items[.publicKey], let signature = items[.signature],
      let name = String(validating: identifier, as: UTF8.self),
      let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: ltpk)
    else { return nil }
    let x = HAPKeyDerivation.key(
      sessionKey, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info")
    guard publicKey.isValidSignature(signature, for: x + identifier + ltpk) else { return nil }
    return HAPPairing(identifier: name, publicKey: ltpk, isAdmin: true)
  }

  /// M6's encrypted data: the accessory's device id, long-term key and signature.
  func accessoryProof(identity: HAPAccessoryIdentity) -> [UInt8] {
    let sessionKey = sessionKey!
    let x = HAPKeyDerivation.key(
      sessionKey, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
    let deviceID = Array(identity.deviceID.utf8)
    let ltpk = Array(identity.signingKey.publicKey.rawRepresentation)
    let signature = Array(try! identity.signingKey.signature(for: x + deviceID + ltpk))
    let plaintext = TLV8.encode([
      TLV8.Item(.identifier, deviceID), TLV8.Item(.publicKey, ltpk), TLV8.Item(.signature, signature),
    ])
    let key = HAPKeyDerivation.key(sessionKey, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
    return HAPKeyDerivation.seal(plaintext, key: key, nonce: "PS-Msg06")
  }
}
