import PatchbayValues

/// One `[instances.NAME.sandbox]` table: what the instance may touch beyond its defaults
/// (docs/configuration.md, "Sandbox").
public struct SandboxSettings: Sendable, Equatable, Codable {
  /// `enabled = false` runs the instance unconfined (status says so).
  public var enabled = true
  /// Absolute paths (files or folders) the instance may read.
  public var read: [String] = []
  /// Absolute paths the instance may read and write.
  public var write: [String] = []
  /// TCP ports the instance may connect to, beyond those its config names.
  public var connect: [Int] = []
  /// TCP ports it may listen on.
  public var bind: [Int] = []
  /// `network = "any"`: TCP is not confined.
  public var networkAny = false
  /// `unix_sockets = true`: may create Unix sockets (D-Bus and the like). Landlock cannot
  /// confine connect(2) to a named socket, so this reaches every socket its user can open.
  public var unixSockets = false

  public init() {}

  /// A config value as the file has it: a string in quotes, a number as is.
  static func shown(_ value: JSONValue) -> String {
    if case .string(let text) = value { return "\"\(text)\"" }
    return value.description
  }

  static let keys = ["enabled", "read", "write", "connect", "bind", "network", "unix_sockets"]

  /// Parses the table; every mistake names the file and the key.
  static func parse(_ value: JSONValue, prefix: String, file: String, _ diagnostics: inout [ConfigDiagnostic])
    -> SandboxSettings
  {
    var settings = SandboxSettings()
    guard case .object(let members) = value else {
      diagnostics.append(
        ConfigDiagnostic(
          file: file, key: prefix, message: "must be a table (read = [...], write = [...], connect = [...], ...)"))
      return settings
    }
    func paths(_ key: String, _ value: JSONValue) -> [String] {
      guard case .array(let items) = value else {
        diagnostics.append(
          ConfigDiagnostic(file: file, key: "\(prefix).\(key)", message: "must be a list of absolute paths"))
        return []
      }
      var result: [String] = []
      for item in items {
        guard case .string(let path) = item, path.hasPrefix("/") else {
          diagnostics.append(
            ConfigDiagnostic(
              file: file, key: "\(prefix).\(key)",
              message: "\(Self.shown(item)) is not an absolute path: each entry must start with '/'"))
          continue
        }
        result.append(path)
      }
      return result
    }
    func ports(_ key: String, _ value: JSONValue) -> [Int] {
      guard case .array(let items) = value else {
        diagnostics.append(
          ConfigDiagnostic(file: file, key: "\(prefix).\(key)", message: "must be a list of TCP ports (1-65535)"))
        return []
      }
      var result: [Int] = []
      for item in items {
        guard case .integer(let port) = item, (1...65535).contains(port) else {
          diagnostics.append(
            ConfigDiagnostic(
              file: file, key: "\(prefix).\(key)",
              message: "\(Self.shown(item)) is not a TCP port: each entry must be 1-65535"))
          continue
        }
        result.append(Int(port))
      }
      return result
    }
    for (key, value) in members {
      switch key {
      case "enabled":
        if case .bool(let enabled) = value {
          settings.enabled = enabled
        } else {
          diagnostics.append(ConfigDiagnostic(file: file, key: "\(prefix).enabled", message: "must be true or false"))
        }
      case "unix_sockets":
        if case .bool(let allowed) = value {
          settings.unixSockets = allowed
        } else {
          diagnostics.append(
            ConfigDiagnostic(
              file: file, key: "\(prefix).unix_sockets",
              message: "must be true (the plugin may open Unix sockets: D-Bus and the like) or false (the default)"))
        }
      case "read": settings.read = paths(key, value)
      case "write": settings.write = paths(key, value)
      case "connect": settings.connect = ports(key, value)
      case "bind": settings.bind = ports(key, value)
      case "network":
        if case .string("any") = value {
          settings.networkAny = true
        } else if case .string("ports") = value {
          settings.networkAny = false
        } else {
          diagnostics.append(
            ConfigDiagnostic(
              file: file, key: "\(prefix).network",
              message: "must be \"ports\" (the default: only the listed TCP ports) or \"any\""))
        }
      default:
        diagnostics.append(
          ConfigDiagnostic(
            file: file, key: "\(prefix).\(key)",
            message: "unknown key\(Suggestion.hint(for: key, in: keys)) (known: \(keys.joined(separator: ", ")))"))
      }
    }
    return settings
  }
}
