/// The 8-digit code a person types into Apple Home ("123-45-678"), SRP's password.
public struct HAPSetupCode: Hashable, Sendable, CustomStringConvertible {
  /// The digits as written, with dashes.
  public let description: String

  /// nil for a malformed or forbidden code.
  public init?(_ text: String) {
    guard Self.validationProblem(text) == nil else { return nil }
    description = text
  }

  /// Why `text` is not a valid setup code, or nil when it is one (for `patchbay check`).
  public static func validationProblem(_ text: String) -> String? {
    let bytes = Array(text.utf8)
    let shape = bytes.count == 10 && bytes[3] == UInt8(ascii: "-") && bytes[6] == UInt8(ascii: "-")
    let digits = bytes.enumerated().filter { $0.offset != 3 && $0.offset != 6 }.map(\.element)
    guard shape, digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
      return "a setup code is 8 digits written XXX-XX-XXX (for example 518-08-582), not \"\(text)\""
    }
    if Set(digits).count == 1 { return "\(text) is forbidden by HomeKit: all digits are the same" }
    if text == "123-45-678" || text == "876-54-321" { return "\(text) is forbidden by HomeKit: too easy to guess" }
    return nil
  }

  /// A random valid code.
  public static func generate() -> HAPSetupCode {
    while true {
      let digits = (0..<8).map { _ in String(Int.random(in: 0...9)) }.joined()
      let text = "\(digits.prefix(3))-\(digits.dropFirst(3).prefix(2))-\(digits.suffix(3))"
      if let code = HAPSetupCode(text) { return code }
    }
  }

  /// The code as the 27-bit integer of the QR payload.
  var integerValue: Int { Int(description.filter(\.isNumber))! }
}
