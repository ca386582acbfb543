import Crypto

/// The session keys pair-verify derives: one per direction.
struct HAPSessionKeys: Sendable {
  /// Accessory → controller (`Control-Read-Encryption-Key`).
  var accessoryToController: [UInt8]
  /// Controller → accessory (`Control-Write-Encryption-Key`).
  var controllerToAccessory: [UInt8]

  init(accessoryToController: [UInt8], controllerToAccessory: [UInt8]) {
    self.accessoryToController = accessoryToController
    self.controllerToAccessory = controllerToAccessory
  }

  init(sharedSecret: [UInt8]) {
    accessoryToController = HAPKeyDerivation.key(
      sharedSecret, salt: "Control-Salt", info: "Control-Read-Encryption-Key")
    controllerToAccessory = HAPKeyDerivation.key(
      sharedSecret, salt: "Control-Salt", info: "Control-Write-Encryption-Key")
  }
}

/// One direction of an encrypted HAP session: `[2-byte LE length n ≤ 1024][n bytes
/// ChaCha20-Poly1305 ciphertext][16-byte tag]`, the length bytes as additional data, the nonce
/// 4 zero bytes then a 64-bit LE counter from 0.
public struct HAPFrameCodec: Sendable {
  public static let maximumFrameLength = 1024
  public static let tagLength = 16

  public enum Failure: Error, Hashable, Sendable {
    /// The length field is over 1024.
    case frameTooLong(Int)
    /// A frame's tag did not authenticate (or a nonce was reused): the connection must close.
    case authenticationFailed
  }

  private let key: SymmetricKey
  private var counter: UInt64 = 0

  public init(key: [UInt8]) { self.key = SymmetricKey(data: key) }

  private mutating func nextNonce() -> ChaChaPoly.Nonce {
    var bytes = [UInt8](repeating: 0, count: 4)
    withUnsafeBytes(of: counter.littleEndian) { bytes += $0 }
    counter += 1
    return try! ChaChaPoly.Nonce(data: bytes)
  }

  /// Splits `plaintext` into sealed frames.
  public mutating func seal(_ plaintext: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var rest = plaintext[...]
    repeat {
      let chunk = rest.prefix(Self.maximumFrameLength)
      rest = rest.dropFirst(chunk.count)
      let length: [UInt8] = [UInt8(chunk.count & 0xFF), UInt8(chunk.count >> 8)]
      let box = try! ChaChaPoly.seal(chunk, using: key, nonce: nextNonce(), authenticating: length)
      out += length + Array(box.ciphertext) + Array(box.tag)
    } while !rest.isEmpty
    return out
  }

  /// Opens every complete frame at the front of `buffer` (removing them) and returns their
  /// plaintext; an incomplete frame stays in `buffer` for more bytes.
  public mutating func open(_ buffer: inout [UInt8]) throws(Failure) -> [UInt8] {
    var plaintext: [UInt8] = []
    var index = 0
    while buffer.count - index >= 2 {
      let length = Int(buffer[index]) | Int(buffer[index + 1]) << 8
      guard length <= Self.maximumFrameLength else { throw .frameTooLong(length) }
      let total = 2 + length + Self.tagLength
      guard buffer.count - index >= total else { break }
      let aad = buffer[index..<index + 2]
      let ciphertext = buffer[index + 2..<index + 2 + length]
      let tag = buffer[index + 2 + length..<index + total]
      guard let box = try? ChaChaPoly.SealedBox(nonce: nextNonce(), ciphertext: ciphertext, tag: tag),
        let opened = try? ChaChaPoly.open(box, using: key, authenticating: aad)
      else { throw .authenticationFailed }
      plaintext += opened
      index += total
    }
    buffer.removeFirst(index)
    return plaintext
  }
}
