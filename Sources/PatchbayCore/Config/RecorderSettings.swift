import PatchbayValues

/// The `[recorder]` table: which ports patchbay-web keeps a history of, and for how long
/// (docs/configuration.md). The hub itself records nothing; it only checks the table.
public struct RecorderSettings: Sendable, Equatable {
  public static let keys = ["enabled", "ports", "retention_days", "max_size_mb"]
  public static let databaseName = "history.sqlite"

  public var enabled = true
  /// Address patterns (`*` matches any run of characters: `*.temperature`); nil: every state output.
  public var ports: [String]? = nil
  public var retentionDays: Double = 30
  public var maxSizeMB: Double = 100
  /// The file that set the table, if one did.
  public var file: String?

  public init() {}

  /// Whether values of `address` go into the history.
  public func records(_ address: String, isStateOutput: Bool) -> Bool {
    guard enabled else { return false }
    guard let ports else { return isStateOutput }
    return ports.contains { Self.matches(address, pattern: $0) }
  }

  /// A glob with `*` as the only wildcard, over the whole address.
  public static func matches(_ address: String, pattern: String) -> Bool {
    let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(Substring.init)
    guard parts.count > 1 else { return address == pattern }
    var rest = Substring(address)
    guard rest.hasPrefix(parts[0]) else { return false }
    rest = rest.dropFirst(parts[0].count)
    for middle in parts.dropFirst().dropLast() where !middle.isEmpty {
      guard let range = rest.range(of: middle) else { return false }
      rest = rest[range.upperBound...]
    }
    return rest.hasSuffix(parts[parts.count - 1])
  }

  /// The history database, in a folder of its own in the hub's state directory (patchbay-web's
  /// unit sees that folder only, not the instances' secrets beside it).
  public static func databasePath(stateDirectory: String) -> String { stateDirectory + "/history/" + databaseName }

  package static func parse(_ content: JSONValue, file: String, _ diagnostics: inout [ConfigDiagnostic])
    -> RecorderSettings
  {
    var settings = RecorderSettings()
    settings.file = file
    guard case .object(let members) = content else {
      diagnostics.append(ConfigDiagnostic(file: file, key: "recorder", message: "must be a table"))
      return settings
    }
    for (key, value) in members {
      let path = "recorder.\(key)"
      switch (key, value) {
      case ("enabled", .bool(let flag)): settings.enabled = flag
      case ("enabled", _):
        diagnostics.append(ConfigDiagnostic(file: file, key: path, message: "must be true or false"))
      case ("ports", .array(let items)):
        var patterns: [String] = []
        for item in items {
          guard case .string(let text) = item, Self.isValidPattern(text) else {
            diagnostics.append(
              ConfigDiagnostic(
                file: file, key: path,
                message: "must be an array of \"INSTANCE.PORT\" patterns (`*` matches any characters,"
                  + " e.g. \"*.temperature\"), got \(item.description)"))
            continue
          }
          patterns.append(text)
        }
        settings.ports = patterns
      case ("ports", _):
        diagnostics.append(
          ConfigDiagnostic(
            file: file, key: path, message: "must be an array of \"INSTANCE.PORT\" patterns, e.g. [\"*.temperature\"]"))
      case ("retention_days", _):
        if let days = value.doubleValue, days >= 1, days <= 3650 {
          settings.retentionDays = days
        } else {
          diagnostics.append(
            ConfigDiagnostic(file: file, key: path, message: "must be a number of days from 1 to 3650"))
        }
      case ("max_size_mb", _):
        if let megabytes = value.doubleValue, megabytes >= 1, megabytes <= 1_048_576 {
          settings.maxSizeMB = megabytes
        } else {
          diagnostics.append(
            ConfigDiagnostic(file: file, key: path, message: "must be a number of megabytes from 1 to 1048576"))
        }
      default:
        diagnostics.append(
          ConfigDiagnostic(file: file, key: path, message: "unknown key\(Suggestion.hint(for: key, in: Self.keys))"))
      }
    }
    return settings
  }

  /// `INSTANCE.PORT` with `*` allowed anywhere: a dot, and nothing but name characters.
  static func isValidPattern(_ text: String) -> Bool {
    guard text.contains(".") || text.contains("*") else { return false }
    return text.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("0"..."9").contains($0) || "_.*".unicodeScalars.contains($0)
    }
  }
}
