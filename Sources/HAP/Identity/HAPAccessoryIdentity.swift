import Crypto

/// Who the accessory is to every controller: a new device id or key is a new accessory.
public struct HAPAccessoryIdentity: Sendable {
  /// "XX:XX:XX:XX:XX:XX", upper-case hex.
  public var deviceID: String
  /// The accessory's Ed25519 long-term secret key.
  public var signingKey: Curve25519.Signing.PrivateKey
  public init(deviceID: String, signingKey: Curve25519.Signing.PrivateKey) {
    self.deviceID = deviceID
    self.signingKey = signingKey
  }

  /// A random device id and a fresh key pair.
  public static func generate() -> HAPAccessoryIdentity {
    var generator = SystemRandomNumberGenerator()
    let deviceID = (0..<6).map { _ in
      let byte = UInt8.random(in: 0...255, using: &generator)
      return String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
    }.joined(separator: ":")
    return HAPAccessoryIdentity(deviceID: deviceID, signingKey: Curve25519.Signing.PrivateKey())
  }
}

extension String {
  func leftPadded(to width: Int, with pad: Character = "0") -> String {
    count >= width ? self : String(repeating: pad, count: width - count) + self
  }
}
