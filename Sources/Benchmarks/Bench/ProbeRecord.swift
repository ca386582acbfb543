import Foundation

/// A probe's one-line summary, `key value key value ...` ("sent 200000 begin_ns ... end_ns ...").
struct ProbeRecord {
  let fields: [String: Int64]

  /// Pairs words line by line, so a line of another shape ("subscribed") shifts nothing.
  init(text: String) {
    var fields: [String: Int64] = [:]
    for line in text.split(separator: "\n") {
      let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
      for index in stride(from: 0, to: words.count - 1, by: 2) { fields[words[index]] = Int64(words[index + 1]) }
    }
    self.fields = fields
  }

  init?(path: String) {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
    self.init(text: text)
  }

  subscript(key: String) -> Int64 { fields[key] ?? 0 }
}
