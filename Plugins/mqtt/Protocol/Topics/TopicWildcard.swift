/// How a subscription with a wildcard names its ports. Ports are declared when the instance
/// starts, so the config lists (in `each`) the topics that get one; the wildcard says which
/// part of a received topic picks the port.
public enum TopicWildcard: Sendable, Equatable {
  /// One `+` level (`rooms/+/temperature`): an `each` entry is that level's value, `kitchen`.
  case level
  /// A final `#` (`sensors/#`): an `each` entry is the rest of the topic under it, one or more
  /// levels, `kitchen/temperature`.
  case rest

  /// The wildcard of a valid filter (see `TopicFilter.problemAsFilter`), nil for none, or why
  /// the plugin cannot tell which part of a topic names the port.
  public static func of(_ filter: String) -> Result<TopicWildcard?, WildcardProblem> {
    let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
    let pluses = levels.indices.filter { levels[$0] == "+" }
    let hash = levels.last == "#"
    if hash && !pluses.isEmpty {
      let prefix = levels[..<pluses[0]].joined(separator: "/")
      return .failure(
        WildcardProblem(
          "'\(filter)' combines + and #, but one wildcard names the ports: subscribe to '\(TopicFilter.join(prefix, "#"))' and list the topics under it in each"
        ))
    }
    if pluses.count > 1 {
      let prefix = levels[..<pluses[0]].joined(separator: "/")
      return .failure(
        WildcardProblem(
          "'\(filter)' has \(pluses.count) + levels, but one wildcard names the ports: keep one +, or subscribe to '\(TopicFilter.join(prefix, "#"))' and list the topics under it in each"
        ))
    }
    if hash { return .success(.rest) }
    return .success(pluses.isEmpty ? nil : .level)
  }

  /// Why `entry` (one of `each`) cannot name a port under this wildcard, or nil.
  func problem(entry: String, filter: String) -> String? {
    if entry.isEmpty { return "must not be empty" }
    if entry.contains("+") || entry.contains("#") {
      return "'\(entry)' has a wildcard; each entry names the topic of one port"
    }
    switch self {
    case .level where entry.contains("/"):
      let prefix = filter.split(separator: "/", omittingEmptySubsequences: false).prefix { $0 != "+" }
      return
        "'\(entry)' must be one topic level (the + of '\(filter)'); for deeper topics subscribe to '\(TopicFilter.join(prefix.joined(separator: "/"), "#"))' instead"
    case .rest where entry.split(separator: "/", omittingEmptySubsequences: false).contains(""):
      return "'\(entry)' has an empty level, which cannot name a port"
    default:
      return nil
    }
  }

  /// The whole topic an `each` entry stands for under `filter`.
  public func topic(for entry: String, filter: String) -> String {
    switch self {
    case .level:
      return filter.split(separator: "/", omittingEmptySubsequences: false).map { $0 == "+" ? entry : String($0) }
        .joined(separator: "/")
    case .rest:
      // Level by level: '/#' has an empty first level, which a join of strings would lose.
      let prefix = filter.split(separator: "/", omittingEmptySubsequences: false).dropLast().map(String.init)
      return (prefix + [entry]).joined(separator: "/")
    }
  }

  /// The port-name suffix for an `each` entry: its levels joined with dots.
  public static func portSuffix(_ entry: String) -> String {
    entry.split(separator: "/", omittingEmptySubsequences: false).joined(separator: ".")
  }
}

/// A wildcard combination the plugin refuses, with what to write instead.
public struct WildcardProblem: Error, Sendable, Equatable {
  public var message: String
  init(_ message: String) { self.message = message }
}
