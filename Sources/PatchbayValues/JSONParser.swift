/// A small JSON reader with no Foundation, so that the plugin host (which reads each
/// instance's config through it) does not load Foundation and its ICU data: a host running a
/// C plugin stays a few MiB. RFC 8259, with a bare scalar allowed at the top, a nesting limit
/// (the text may come from a user or a plugin), and object keys sorted as `JSONDecoder` gave
/// them before (so nothing downstream sees a different order).
struct JSONParser {
  static let maximumDepth = 256

  private let bytes: [UInt8]
  private var index = 0

  private init(_ text: String) { bytes = Array(text.utf8) }

  static func parse(_ text: String) -> JSONValue? {
    var parser = JSONParser(text)
    guard let value = parser.value(depth: 0) else { return nil }
    parser.skipWhitespace()
    return parser.index == parser.bytes.count ? value : nil
  }

  private mutating func skipWhitespace() {
    while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
  }

  private mutating func consume(_ literal: String) -> Bool {
    let expected = Array(literal.utf8)
    guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
      return false
    }
    index += expected.count
    return true
  }

  private mutating func value(depth: Int) -> JSONValue? {
    guard depth <= Self.maximumDepth else { return nil }
    skipWhitespace()
    guard index < bytes.count else { return nil }
    switch bytes[index] {
    case UInt8(ascii: "{"): return object(depth: depth)
    case UInt8(ascii: "["): return array(depth: depth)
    case UInt8(ascii: "\""): return string().map(JSONValue.string)
    case UInt8(ascii: "t"): return consume("true") ? .bool(true) : nil
    case UInt8(ascii: "f"): return consume("false") ? .bool(false) : nil
    case UInt8(ascii: "n"): return consume("null") ? .null : nil
    default: return number()
    }
  }

  private mutating func object(depth: Int) -> JSONValue? {
    index += 1
    var members: [String: JSONValue] = [:]
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object([])
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
      index += 1
      guard let member = value(depth: depth + 1) else { return nil }
      members[key] = member
      skipWhitespace()
      guard index < bytes.count else { return nil }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      guard bytes[index] == UInt8(ascii: "}") else { return nil }
      index += 1
      return .object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }
  }

  private mutating func array(depth: Int) -> JSONValue? {
    index += 1
    var items: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array([])
    }
    while true {
      guard let item = value(depth: depth + 1) else { return nil }
      items.append(item)
      skipWhitespace()
      guard index < bytes.count else { return nil }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      guard bytes[index] == UInt8(ascii: "]") else { return nil }
      index += 1
      return .array(items)
    }
  }

  private mutating func string() -> String? {
    index += 1
    var scalars = String.UnicodeScalarView()
    var run = index
    func flush(_ end: Int) {
      if end > run { scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars) }
    }
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        flush(index)
        index += 1
        return String(scalars)
      }
      if byte < 0x20 { return nil }
      guard byte == UInt8(ascii: "\\") else {
        index += 1
        continue
      }
      flush(index)
      index += 1
      guard index < bytes.count else { return nil }
      let escape = bytes[index]
      index += 1
      switch escape {
      case UInt8(ascii: "\""): scalars.append("\"")
      case UInt8(ascii: "\\"): scalars.append("\\")
      case UInt8(ascii: "/"): scalars.append("/")
      case UInt8(ascii: "b"): scalars.append("\u{08}")
      case UInt8(ascii: "f"): scalars.append("\u{0C}")
      case UInt8(ascii: "n"): scalars.append("\n")
      case UInt8(ascii: "r"): scalars.append("\r")
      case UInt8(ascii: "t"): scalars.append("\t")
      case UInt8(ascii: "u"):
        guard let unit = hex4() else { return nil }
        if (0xD800..<0xDC00).contains(unit) {
          // A high surrogate must be followed by an escaped low one.
          guard consume("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low),
            let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
          else { return nil }
          scalars.append(scalar)
        } else {
          guard let scalar = Unicode.Scalar(unit) else { return nil }
          scalars.append(scalar)
        }
      default: return nil
      }
      run = index
    }
    return nil
  }

  private mutating func hex4() -> UInt32? {
    guard bytes.count - index >= 4 else { return nil }
    var unit: UInt32 = 0
    for byte in bytes[index..<index + 4] {
      guard let digit = Self.hexDigit(byte) else { return nil }
      unit = unit << 4 | digit
    }
    index += 4
    return unit
  }

  private static func hexDigit(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`: an integer when its value is a
  /// whole number that fits in 64 bits (`1e3` and `5.0` too, as `JSONDecoder` read them),
  /// else a double.
  private mutating func number() -> JSONValue? {
    let start = index
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
    func digits() -> Int {
      let from = index
      while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
      return index - from
    }
    let integerStart = index
    let integerDigits = digits()
    guard integerDigits > 0, !(integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0")) else { return nil }
    var integral = true
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard digits() > 0 else { return nil }
      integral = false
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
      guard digits() > 0 else { return nil }
      integral = false
    }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    if integral, let integer = Int64(text) { return .integer(integer) }
    guard let number = Double(text), number.isFinite else { return nil }
    if number == number.rounded(), abs(number) < 9.2e18 { return .integer(Int64(number)) }
    return .number(number)
  }
}
