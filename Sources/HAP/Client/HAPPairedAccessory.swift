/// What a controller must keep about an accessory it paired with, to pair-verify later.
public struct HAPPairedAccessory: Hashable, Sendable, Codable {
  /// The accessory's pairing id: its device id, "XX:XX:XX:XX:XX:XX".
  public var pairingID: String
  /// Its Ed25519 long-term public key, 32 bytes.
  public var publicKey: [UInt8]
  public init(pairingID: String, publicKey: [UInt8]) {
    self.pairingID = pairingID
    self.publicKey = publicKey
  }
}
