extension PluginError {
  /// A config key the plugin does not know (a typo would otherwise be silently ignored), with
  /// the closest known key as a "did you mean" and the list of known keys.
  public static func unknownKey(_ key: String, known: [String], path: String = "") -> PluginError {
    let close = known.min { editDistance($0, key) < editDistance($1, key) }
    let hint = close.flatMap { editDistance($0, key) <= 3 ? " (did you mean '\(path)\($0)'?)" : nil } ?? ""
    return .config("unknown key '\(path)\(key)'\(hint); known keys: \(known.joined(separator: ", "))")
  }

  /// Levenshtein distance between two keys.
  static func editDistance(_ a: String, _ b: String) -> Int {
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
