/// A controller paired with the accessory.
public struct HAPPairing: Hashable, Sendable, Codable {
  /// The controller's pairing id (UTF-8 text, usually a UUID).
  public var identifier: String
  /// Its Ed25519 long-term public key, 32 bytes.
  public var publicKey: [UInt8]
  public var isAdmin: Bool
  public init(identifier: String, publicKey: [UInt8], isAdmin: Bool) {
    self.identifier = identifier
    self.publicKey = publicKey
    self.isAdmin = isAdmin
  }
}
