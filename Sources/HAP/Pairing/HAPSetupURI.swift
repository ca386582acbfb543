import Crypto

/// The QR code's payload: "X-HM://" + 9 base-36 characters of a 45-bit number (version 0,
/// reserved 0, category, flags 2 = IP, setup code) + the setup id.
public func hapSetupURI(code: HAPSetupCode, setupID: String, category: HAPCategory) -> String {
  let ipFlag: UInt64 = 2
  let payload = UInt64(category.rawValue) << 31 | ipFlag << 27 | UInt64(code.integerValue)
  let encoded = String(payload, radix: 36, uppercase: true).leftPadded(to: 9)
  return "X-HM://" + encoded + setupID
}

/// TXT `sh`: base64 of the first 4 bytes of SHA-512(setup id ‖ device id).
public func hapSetupHash(setupID: String, deviceID: String) -> String {
  let digest = Array(SHA512.hash(data: Array((setupID + deviceID).utf8)))
  return base64(Array(digest.prefix(4)))
}

/// A random setup id: 4 characters of 0-9A-Z.
public func hapGenerateSetupID() -> String {
  let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
  return String((0..<4).map { _ in alphabet.randomElement()! })
}

/// RFC 4648 base64 with padding (no Foundation in this module).
func base64(_ bytes: [UInt8]) -> String {
  let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
  var out = ""
  var index = 0
  while index < bytes.count {
    let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
    let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
    for position in 0..<4 {
      out.append(position <= chunk.count ? table[(value >> (18 - 6 * position)) & 63] : "=")
    }
    index += 3
  }
  return out
}
