import Crypto

/// HAP's HKDF-SHA-512 derivations and the ChaCha20-Poly1305 of pairing messages.
enum HAPKeyDerivation {
  static func key(_ secret: [UInt8], salt: String, info: String, length: Int = 32) -> [UInt8] {
    let key = HKDF<SHA512>.deriveKey(
      inputKeyMaterial: SymmetricKey(data: secret), salt: Array(salt.utf8), info: Array(info.utf8),
      outputByteCount: length)
    return key.withUnsafeBytes { Array($0) }
  }

  /// A pairing message's nonce: the ASCII label ("PS-Msg05") left-padded with zeros to 12 bytes.
  static func nonce(_ label: String) -> ChaChaPoly.Nonce {
    let bytes = Array(label.utf8)
    return try! ChaChaPoly.Nonce(data: [UInt8](repeating: 0, count: 12 - bytes.count) + bytes)
  }

  /// ciphertext ‖ tag.
  static func seal(_ plaintext: [UInt8], key: [UInt8], nonce label: String) -> [UInt8] {
    let box = try! ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key), nonce: nonce(label))
    return Array(box.ciphertext) + Array(box.tag)
  }

  /// nil when the tag does not authenticate.
  static func open(_ sealed: [UInt8], key: [UInt8], nonce label: String) -> [UInt8]? {
    guard sealed.count >= 16,
      let box = try? ChaChaPoly.SealedBox(
        nonce: nonce(label), ciphertext: sealed.dropLast(16), tag: sealed.suffix(16)),
      let plaintext = try? ChaChaPoly.open(box, using: SymmetricKey(data: key))
    else { return nil }
    return Array(plaintext)
  }
}
