/// "Did you mean": the closest of a few known words (the kit's own helper is internal to it).
enum Spelling {
  /// The known word within three edits of `word`, closest first; nil when none is that close.
  static func closest(to word: String, in known: [String]) -> String? {
    let best = known.min { distance($0, word) < distance($1, word) }
    return best.flatMap { distance($0, word) <= 3 ? $0 : nil }
  }

  /// Levenshtein distance.
  static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    var row = Array(0...b.count)
    for i in 1...a.count {
      var diagonal = row[0]
      row[0] = i
      for j in stride(from: 1, through: b.count, by: 1) {
        let above = row[j]
        row[j] = min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1))
        diagonal = above
      }
    }
    return row[b.count]
  }
}
