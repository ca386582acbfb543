/// Text that goes into a log line, made safe to print: control characters (C0, DEL, C1) are
/// written visibly (`\n`, `\r`, `\t`, `\x1b`, `\u{85}`), so a plugin's or a peer's text cannot
/// start a line of its own that looks like the hub's, nor reach a terminal as an escape sequence.
enum LogText {
  static func escaped(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: needsEscape) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      guard needsEscape(scalar) else {
        result.unicodeScalars.append(scalar)
        continue
      }
      switch scalar {
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      default:
        let hex = String(scalar.value, radix: 16)
        result += scalar.value < 0x80 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{\(hex)}"
      }
    }
    return result
  }

  private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }
}
