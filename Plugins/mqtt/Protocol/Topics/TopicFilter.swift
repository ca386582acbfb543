/// MQTT topic names (what is published) and filters (what is subscribed, with `+` and `#`),
/// checked by the rules of MQTT 3.1.1 section 4.7 so a config mistake is a create error.
public enum TopicFilter {
  public static let maximumBytes = 65535

  /// Why `topic` cannot be published to, or nil when it can.
  public static func problemAsTopicName(_ topic: String) -> String? {
    if let problem = commonProblem(topic) { return problem }
    if topic.contains("+") || topic.contains("#") {
      return "'\(topic)' has a wildcard (+ or #); a publish topic names one topic"
    }
    return nil
  }

  /// Why `filter` cannot be subscribed to, or nil when it can.
  public static func problemAsFilter(_ filter: String) -> String? {
    if let problem = commonProblem(filter) { return problem }
    let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
    for (index, level) in levels.enumerated() {
      if level.contains("#") && (level != "#" || index != levels.count - 1) {
        return "'\(filter)': # must be a whole level and the last one (\(hashSuggestion(levels, at: index)))"
      }
      if level.contains("+") && level != "+" {
        var fixed = levels.map(String.init)
        fixed[index] = "+"
        return "'\(filter)': + must be a whole level (did you mean '\(fixed.joined(separator: "/"))'?)"
      }
    }
    return nil
  }

  /// What a misplaced `#` probably meant: `+` for one level inside the topic, or a level of
  /// its own at the end.
  static func hashSuggestion(_ levels: [Substring], at index: Int) -> String {
    var fixed = levels.map(String.init)
    if levels[index] == "#" {
      fixed[index] = "+"
      return "for one level use +: '\(fixed.joined(separator: "/"))'"
    }
    if index == levels.count - 1 {
      fixed[index] = levels[index].filter { $0 != "#" }
      if fixed[index].isEmpty { fixed.removeLast() }
      return "did you mean '\((fixed + ["#"]).joined(separator: "/"))'?"
    }
    fixed[index] = "+"
    return "for one level use +: '\(fixed.joined(separator: "/"))'"
  }

  static func commonProblem(_ topic: String) -> String? {
    if topic.isEmpty { return "must not be empty" }
    if topic.utf8.count > maximumBytes { return "is longer than \(maximumBytes) bytes" }
    if topic.unicodeScalars.contains(where: {
      $0.value == 0 || ($0.value < 0x20) || ($0.value >= 0x7F && $0.value < 0xA0)
    }) {
      return "'\(topic)' has a control character"
    }
    if topic.hasPrefix("$") { return "'\(topic)' starts with $ (the broker's own topics)" }
    return nil
  }

  /// Whether `topic` (a topic name) matches `filter`; a `+` level matches one level, a final
  /// `#` the rest (including none).
  public static func matches(_ topic: String, filter: String) -> Bool {
    wildcardLevels(topic, filter: filter) != nil
  }

  /// The topic's levels that the filter's `+` levels matched, in order; nil when no match.
  public static func wildcardLevels(_ topic: String, filter: String) -> [String]? {
    let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
    let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
    if topic.hasPrefix("$") && (filterLevels.first == "+" || filterLevels.first == "#") { return nil }
    var matched: [String] = []
    for (index, level) in filterLevels.enumerated() {
      if level == "#" { return matched }
      guard index < topicLevels.count else { return nil }
      if level == "+" {
        matched.append(String(topicLevels[index]))
      } else if level != topicLevels[index] {
        return nil
      }
    }
    return topicLevels.count == filterLevels.count ? matched : nil
  }

  /// What picks the port of a `[[topics]]` entry in `topic` under `filter`: the value of the
  /// filter's `+` level, the rest of the topic under its final `#` (levels joined with /, ""
  /// for the `#`'s parent itself), "" without a wildcard; nil when the topic does not match.
  public static func portKey(_ topic: String, filter: String) -> String? {
    let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
    let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
    if topic.hasPrefix("$") && (filterLevels.first == "+" || filterLevels.first == "#") { return nil }
    var key: String?
    for (index, level) in filterLevels.enumerated() {
      if level == "#" { return key ?? topicLevels.dropFirst(index).joined(separator: "/") }
      guard index < topicLevels.count else { return nil }
      if level == "+" {
        key = key ?? String(topicLevels[index])
      } else if level != topicLevels[index] {
        return nil
      }
    }
    return topicLevels.count == filterLevels.count ? key ?? "" : nil
  }

  /// `base` and `rest` joined with exactly one slash.
  public static func join(_ base: String, _ rest: String) -> String {
    if base.isEmpty { return rest }
    return base.hasSuffix("/") ? base + rest : base + "/" + rest
  }
}
