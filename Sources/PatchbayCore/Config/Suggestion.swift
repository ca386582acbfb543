import PatchbayValues

/// "did you mean" in the hub's config and control messages (the rule is `Spelling`'s).
package enum Suggestion {
  package static func closest(to word: String, in candidates: [String]) -> String? {
    Spelling.closest(to: word, in: candidates)
  }

  /// " (did you mean 'x'?)" or "".
  package static func hint(for word: String, in candidates: [String]) -> String {
    closest(to: word, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
  }
}
