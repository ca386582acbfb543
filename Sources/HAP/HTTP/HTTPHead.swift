/// The byte work both HTTP parsers share on a message's head (request or status line and
/// headers): bytes, not Characters, since splitting and trimming a String by Character runs
/// Unicode's grapheme rules over every byte, most of the parsers' time (issue 44). CR, LF, ':'
/// and blanks are ASCII, so every piece of valid UTF-8 cut at them is valid UTF-8.
enum HTTPHead {
  /// Where `needle` first starts in `haystack`, looking at most `limit` bytes in.
  static func find(_ needle: [UInt8], in haystack: [UInt8], limit: Int) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    let end = min(haystack.count - needle.count, limit)
    var index = 0
    while index <= end {
      if haystack[index] == needle[0], haystack[index..<index + needle.count].elementsEqual(needle) { return index }
      index += 1
    }
    return nil
  }

  /// The lines of `head`, cut at each CR LF (the first line first; never empty).
  static func lines(of head: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
    var lines: [ArraySlice<UInt8>] = []
    var start = head.startIndex
    var index = head.startIndex
    while index < head.endIndex {
      if head[index] == 13, index + 1 < head.endIndex, head[index + 1] == 10 {
        lines.append(head[start..<index])
        index += 2
        start = index
      } else {
        index += 1
      }
    }
    lines.append(head[start..<head.endIndex])
    return lines
  }

  /// Without the spaces and tabs at either end.
  static func trimmingBlanks(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) })
    else { return bytes[bytes.endIndex...] }
    return bytes[first...last]
  }
}
