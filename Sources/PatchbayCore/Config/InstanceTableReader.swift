import PatchbayValues

/// Reads one `[instances.NAME]` table: the hub's keys into settings, every other key into the
/// plugin's own config; every mistake in the table is collected, not only the first.
struct InstanceTableReader {
  let prefix: String
  let file: String
  private(set) var diagnostics: [ConfigDiagnostic] = []
  private(set) var plugin: String?
  private(set) var logLevel = "info"
  private(set) var supervision = SupervisionSettings()
  private(set) var sandbox = SandboxSettings()
  private(set) var room: String?
  private(set) var own: [(String, JSONValue)] = []

  init(prefix: String, file: String) {
    self.prefix = prefix
    self.file = file
  }

  private mutating func fail(_ key: String, _ message: String) {
    diagnostics.append(ConfigDiagnostic(file: file, key: "\(prefix).\(key)", message: message))
  }

  mutating func read(_ key: String, _ value: JSONValue) {
    if let rule = SupervisionKey.byName[key] {
      if let number = rule.accept(value) { rule.apply(&supervision, number) } else { fail(key, rule.rangeMessage) }
      return
    }
    switch key {
    case "plugin":
      if case .string(let text) = value, !text.isEmpty { plugin = text } else { fail(key, "must be a plugin name") }
    case "log_level":
      if case .string(let level) = value, ConfigLoader.logLevels.contains(level) {
        logLevel = level
      } else {
        fail(key, "must be one of \(ConfigLoader.logLevels.joined(separator: ", "))")
      }
    case "restart":
      if case .string(let text) = value, let policy = RestartPolicy(rawValue: text) {
        supervision.restart = policy
      } else {
        fail(key, "must be \"permanent\", \"transient\" or \"temporary\"")
      }
    case "sandbox":
      sandbox = SandboxSettings.parse(value, prefix: "\(prefix).sandbox", file: file, &diagnostics)
    case "room":
      if case .string(let text) = value, ConfigLoader.isRoomName(text) {
        room = text
      } else {
        fail(key, "must be a room's name, 1-64 characters without control characters, like \"Bedroom\"")
      }
    default:
      own.append((key, value))
    }
  }

  /// The plugin's own config goes to the host in one wire frame: refuse what cannot, naming the
  /// biggest key.
  mutating func checkOwnConfigSize() {
    let configBytes = JSONValue.object(own).description.utf8.count
    guard configBytes > ConfigLoader.maximumInstanceConfigBytes else { return }
    let sizes = own.map { ($0.0, $0.1.description.utf8.count) }
    let (key, bytes) = sizes.max { $0.1 < $1.1 } ?? ("", 0)
    fail(
      key,
      "too big: the instance's own config is \(configBytes / 1024) KiB (this key \(bytes / 1024) KiB);"
        + " it may be at most \(ConfigLoader.maximumInstanceConfigBytes / 1024) KiB, as it travels to the plugin in"
        + " one message: keep bulky data in a file and give its path")
  }

  /// The instance, when the table had no mistake.
  mutating func spec(name: String) -> InstanceSpec? {
    guard let plugin else {
      if diagnostics.isEmpty { fail("plugin", "missing required key: the plugin this instance runs") }
      return nil
    }
    checkOwnConfigSize()
    guard diagnostics.isEmpty else { return nil }
    var spec = InstanceSpec(
      name: name, plugin: plugin, logLevel: logLevel, supervision: supervision, pluginConfig: .object(own), file: file,
      sandbox: sandbox)
    spec.room = room
    return spec
  }
}
