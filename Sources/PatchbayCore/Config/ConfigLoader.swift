import Foundation
import PatchbayValues

/// Reads the main config file and `conf.d/*.toml` (in name order) into a `HubConfig`,
/// collecting every structural problem instead of stopping at the first.
public struct ConfigLoader: Sendable {
  /// Keys of an instance section that belong to the hub, not to the plugin.
  public static let hubInstanceKeys = [
    "plugin", "log_level", "restart", "backoff_initial_ms", "backoff_max_ms", "max_restarts", "restart_window_s",
    "stable_after_s", "heartbeat_interval_ms", "hang_timeout_ms", "stop_timeout_ms", "memory_limit_mb", "open_files",
    "memory_max_mb", "pids_max", "cpu_weight",
    "queue_size", "sandbox", "room",
  ]
  package static let hubKeys = ["state_directory", "control_socket", "plugin_path", "log_level"]
  /// Most bytes an instance's own config may take as JSON: it goes to the plugin host in the
  /// load request, one wire frame (`WireProtocol.maximumFrameBytes`, with paths beside it).
  public static let maximumInstanceConfigBytes = 32 * 1024
  /// Longest path a Unix socket can be bound to: `sun_path` is 108 bytes with its NUL.
  public static let maximumSocketPathBytes = 107
  package static let routeKeys = [
    "name", "from", "to", "cycle_to", "filter", "map", "value", "cycle", "momentary", "when",
  ]
  package static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

  /// Runs before any file is parsed; a diagnostic it returns is the only one reported. The CLI
  /// passes `ParserIsolation.crash`, which parses the files in a child process first, because
  /// toml++ can abort on malformed input.
  package let preflight: (@Sendable (_ mainFile: String) -> ConfigDiagnostic?)?

  public init(preflight: (@Sendable (_ mainFile: String) -> ConfigDiagnostic?)? = nil) {
    self.preflight = preflight
  }

  /// The files that make up the config at `mainFile`: itself, then its conf.d directory.
  public static func files(mainFile: String) -> [String] {
    let directory = (mainFile as NSString).deletingLastPathComponent
    let confD = (directory.isEmpty ? "." : directory) + "/conf.d"
    let extra = ((try? FileManager.default.contentsOfDirectory(atPath: confD)) ?? [])
      .filter { $0.hasSuffix(".toml") }.sorted().map { confD + "/" + $0 }
    return [mainFile] + extra
  }

  /// The config, only if every file is free of structural errors (what `run` and reload need).
  public func load(mainFile: String) -> Result<HubConfig, ConfigErrors> {
    let (config, diagnostics) = loadCollectingErrors(mainFile: mainFile)
    guard diagnostics.isEmpty else { return .failure(ConfigErrors(diagnostics)) }
    return .success(config)
  }

  /// Everything that could be read, plus every structural problem: `check` goes on to check
  /// plugins and routes of the valid parts, so one run reports all mistakes.
  public func loadCollectingErrors(mainFile: String) -> (HubConfig, [ConfigDiagnostic]) {
    var diagnostics: [ConfigDiagnostic] = []
    let empty = HubConfig(
      files: [],
      hub: HubSettings(
        stateDirectory: Defaults.stateDirectory, controlSocket: Defaults.controlSocket, pluginPath: [],
        logLevel: "info"),
      instances: [], routes: [])
    guard FileManager.default.fileExists(atPath: mainFile) else {
      return (empty, [ConfigDiagnostic(file: mainFile, message: "no such config file")])
    }
    if let preflight, let problem = preflight(mainFile) { return (empty, [problem]) }
    var documents: [(String, JSONValue)] = []
    for file in Self.files(mainFile: mainFile) {
      switch TOMLDocument.read(file) {
      case .success(let tree): documents.append((file, tree))
      case .failure(let diagnostic): diagnostics.append(diagnostic)
      }
    }
    var settings = HubSettings(
      stateDirectory: Defaults.stateDirectory, controlSocket: Defaults.controlSocket, pluginPath: [], logLevel: "info")
    var instances: [InstanceSpec] = []
    var routes: [RouteSpec] = []
    var scenes: [SceneSpec] = []
    var recorder = RecorderSettings()
    for (file, tree) in documents {
      guard case .object(let sections) = tree else { continue }
      for (section, content) in sections {
        switch section {
        case "hub":
          parseHub(content, file: file, into: &settings, &diagnostics)
        case "instances":
          parseNamedTables(
            content, section: "instances", noun: "instance", file: file, into: &instances, &diagnostics,
            name: \.name, origin: \.file, parse: parseInstance(name:_:file:_:))
        case "routes":
          guard case .array(let entries) = content else {
            diagnostics.append(
              ConfigDiagnostic(file: file, key: "routes", message: "must be an array of tables: use [[routes]]"))
            continue
          }
          // Numbered within their file: `routes[2]` is the second [[routes]] of the file named.
          for (index, entry) in entries.enumerated() {
            if let route = parseRoute(entry, index: index, file: file, &diagnostics) { routes.append(route) }
          }
        case "scenes":
          parseNamedTables(
            content, section: "scenes", noun: "scene", file: file, into: &scenes, &diagnostics, name: \.name,
            origin: \.file, parse: parseScene(name:_:file:_:))
        case "recorder":
          recorder = RecorderSettings.parse(content, file: file, &diagnostics)
        default:
          let known = ["hub", "instances", "routes", "scenes", "recorder"]
          diagnostics.append(
            ConfigDiagnostic(
              file: file, key: section,
              message: "unknown section\(Suggestion.hint(for: section, in: known))"
                + " (known: \(known.joined(separator: ", ")))"))
        }
      }
    }
    if let reserved = instances.first(where: { $0.name == SceneSpec.instanceName }) {
      diagnostics.append(
        ConfigDiagnostic(
          file: reserved.file, key: "instances.\(SceneSpec.instanceName)",
          message: "'\(SceneSpec.instanceName)' is the hub's own name for scenes (scene.NAME); choose another name"))
    }
    diagnostics += SceneLoops.find(routes: routes)
    var config = HubConfig(files: documents.map(\.0), hub: settings, instances: instances, routes: routes)
    config.scenes = scenes
    config.recorder = recorder
    return (config, diagnostics)
  }

  // MARK: Sections

  /// A table of named tables (`[instances.NAME]`, `[scenes.NAME]`), each parsed by `parse`; a
  /// name defined before (in this file or an earlier one) is refused, naming both files.
  func parseNamedTables<Spec>(
    _ content: JSONValue, section: String, noun: String, file: String, into specs: inout [Spec],
    _ diagnostics: inout [ConfigDiagnostic], name: KeyPath<Spec, String>, origin: KeyPath<Spec, String>,
    parse: (String, JSONValue, String, inout [ConfigDiagnostic]) -> Spec?
  ) {
    guard case .object(let entries) = content else {
      diagnostics.append(ConfigDiagnostic(file: file, key: section, message: "must be a table of \(section)"))
      return
    }
    for (key, body) in entries {
      if let existing = specs.first(where: { $0[keyPath: name] == key }) {
        diagnostics.append(
          ConfigDiagnostic(
            file: file, key: "\(section).\(key)",
            message: "duplicate \(noun) '\(key)' (already defined in \(existing[keyPath: origin]))"))
        continue
      }
      if let spec = parse(key, body, file, &diagnostics) { specs.append(spec) }
    }
  }

  package func parseHub(
    _ content: JSONValue, file: String, into settings: inout HubSettings, _ diagnostics: inout [ConfigDiagnostic]
  ) {
    guard case .object(let members) = content else {
      diagnostics.append(ConfigDiagnostic(file: file, key: "hub", message: "must be a table"))
      return
    }
    let base = (file as NSString).deletingLastPathComponent
    for (key, value) in members {
      let path = "hub.\(key)"
      switch (key, value) {
      case ("state_directory", .string(let text)) where text.isEmpty,
        ("control_socket", .string(let text))
      where text.isEmpty:
        // Resolved against the config's folder, "" would silently mean that folder.
        diagnostics.append(ConfigDiagnostic(file: file, key: path, message: "must not be empty: give a path"))
      case ("state_directory", .string(let text)):
        settings.stateDirectory = Self.resolve(text, relativeTo: base)
        settings.stateDirectoryFile = file
      case ("control_socket", .string(let text)):
        let socket = Self.resolve(text, relativeTo: base)
        if socket.utf8.count > Self.maximumSocketPathBytes {
          diagnostics.append(
            ConfigDiagnostic(
              file: file, key: path,
              message: "'\(socket)' is \(socket.utf8.count) bytes long; a Unix socket's path may be at most"
                + " \(Self.maximumSocketPathBytes) bytes (sun_path): choose a shorter path"))
        }
        settings.controlSocket = socket
      case ("plugin_path", .array(let items)):
        let paths = items.compactMap { item -> String? in
          if case .string(let text) = item { return Self.resolve(text, relativeTo: base) }
          return nil
        }
        if paths.count != items.count {
          diagnostics.append(ConfigDiagnostic(file: file, key: path, message: "must be an array of directory paths"))
        }
        settings.pluginPath += paths
      case ("log_level", .string(let level)) where Self.logLevels.contains(level): settings.logLevel = level
      case ("log_level", _):
        diagnostics.append(
          ConfigDiagnostic(file: file, key: path, message: "must be one of \(Self.logLevels.joined(separator: ", "))"))
      case ("state_directory", _), ("control_socket", _):
        diagnostics.append(ConfigDiagnostic(file: file, key: path, message: "must be a path string"))
      case ("plugin_path", _):
        diagnostics.append(ConfigDiagnostic(file: file, key: path, message: "must be an array of directory paths"))
      default:
        diagnostics.append(
          ConfigDiagnostic(
            file: file, key: path, message: "unknown key\(Suggestion.hint(for: key, in: Self.hubKeys))"))
      }
    }
  }

  package func parseInstance(name: String, _ body: JSONValue, file: String, _ diagnostics: inout [ConfigDiagnostic])
    -> InstanceSpec?
  {
    let prefix = "instances.\(name)"
    guard case .object(let members) = body else {
      diagnostics.append(ConfigDiagnostic(file: file, key: prefix, message: "must be a table"))
      return nil
    }
    guard PortDescriptor.isValidName(name), !name.contains(".") else {
      // Escaped: a control character in the name must not reach the terminal as itself.
      let shown = name.unicodeScalars.map { $0.escaped(asASCII: true) }.joined()
      diagnostics.append(
        ConfigDiagnostic(
          file: file, key: "instances.\(shown)",
          message: "'\(shown)' is not a valid instance name: names are 1-64 characters"
            + " of a-z, 0-9 and _ (no dots, spaces or control characters)"))
      return nil
    }
    let count = diagnostics.count
    var plugin: String?
    var logLevel = "info"
    var supervision = SupervisionSettings()
    var sandbox = SandboxSettings()
    var room: String?
    var own: [(String, JSONValue)] = []
    func number(_ key: String, _ value: JSONValue, min lower: Double, max upper: Double) -> Double? {
      guard let number = value.doubleValue, number >= lower, number <= upper else {
        diagnostics.append(
          ConfigDiagnostic(
            file: file, key: "\(prefix).\(key)", message: "must be a number from \(Int(lower)) to \(Int(upper))"))
        return nil
      }
      return number
    }
    for (key, value) in members {
      switch key {
      case "plugin":
        if case .string(let text) = value, !text.isEmpty {
          plugin = text
        } else {
          diagnostics.append(ConfigDiagnostic(file: file, key: "\(prefix).plugin", message: "must be a plugin name"))
        }
      case "log_level":
        if case .string(let level) = value, Self.logLevels.contains(level) {
          logLevel = level
        } else {
          diagnostics.append(
            ConfigDiagnostic(
              file: file, key: "\(prefix).log_level",
              message: "must be one of \(Self.logLevels.joined(separator: ", "))"))
        }
      case "restart":
        if case .string(let text) = value, let policy = RestartPolicy(rawValue: text) {
          supervision.restart = policy
        } else {
          diagnostics.append(
            ConfigDiagnostic(
              file: file, key: "\(prefix).restart", message: "must be \"permanent\", \"transient\" or \"temporary\""))
        }
      case "backoff_initial_ms":
        number(key, value, min: 0, max: 3_600_000).map { supervision.backoffInitial = $0 / 1000 }
      case "backoff_max_ms": number(key, value, min: 0, max: 86_400_000).map { supervision.backoffMax = $0 / 1000 }
      case "max_restarts": number(key, value, min: 0, max: 1_000_000).map { supervision.maxRestarts = Int($0) }
      case "restart_window_s": number(key, value, min: 1, max: 86_400).map { supervision.restartWindow = $0 }
      case "stable_after_s": number(key, value, min: 0, max: 86_400).map { supervision.stableAfter = $0 }
      case "heartbeat_interval_ms":
        number(key, value, min: 50, max: 3_600_000).map { supervision.heartbeatInterval = $0 / 1000 }
      case "hang_timeout_ms":
        number(key, value, min: 100, max: 3_600_000).map { supervision.hangTimeout = $0 / 1000 }
      case "stop_timeout_ms": number(key, value, min: 0, max: 600_000).map { supervision.stopTimeout = $0 / 1000 }
      case "memory_limit_mb": number(key, value, min: 0, max: 1_048_576).map { supervision.memoryLimitMB = Int($0) }
      case "memory_max_mb": number(key, value, min: 16, max: 1_048_576).map { supervision.memoryMaxMB = Int($0) }
      case "pids_max": number(key, value, min: 16, max: 4_194_304).map { supervision.pidsMax = Int($0) }
      // cgroup v2's range; 100 is every process's share by default.
      case "cpu_weight": number(key, value, min: 1, max: 10_000).map { supervision.cpuWeight = Int($0) }
      case "open_files": number(key, value, min: 0, max: 1_048_576).map { supervision.openFiles = Int($0) }
      case "queue_size": number(key, value, min: 1, max: 1_000_000).map { supervision.queueSize = Int($0) }
      case "sandbox": sandbox = SandboxSettings.parse(value, prefix: "\(prefix).sandbox", file: file, &diagnostics)
      case "room":
        if case .string(let text) = value, Self.isRoomName(text) {
          room = text
        } else {
          diagnostics.append(
            ConfigDiagnostic(
              file: file, key: "\(prefix).room",
              message: "must be a room's name, 1-64 characters without control characters, like \"Bedroom\""))
        }
      default:
        own.append((key, value))
      }
    }
    guard let plugin else {
      if diagnostics.count == count {
        diagnostics.append(
          ConfigDiagnostic(
            file: file, key: "\(prefix).plugin", message: "missing required key: the plugin this instance runs"))
      }
      return nil
    }
    let configBytes = JSONValue.object(own).description.utf8.count
    if configBytes > Self.maximumInstanceConfigBytes {
      let sizes = own.map { ($0.0, $0.1.description.utf8.count) }
      let (key, bytes) = sizes.max { $0.1 < $1.1 } ?? ("", 0)
      diagnostics.append(
        ConfigDiagnostic(
          file: file, key: "\(prefix).\(key)",
          message: "too big: the instance's own config is \(configBytes / 1024) KiB (this key \(bytes / 1024) KiB);"
            + " it may be at most \(Self.maximumInstanceConfigBytes / 1024) KiB, as it travels to the plugin in one"
            + " message: keep bulky data in a file and give its path"))
    }
    guard diagnostics.count == count else { return nil }
    var spec = InstanceSpec(
      name: name, plugin: plugin, logLevel: logLevel, supervision: supervision, pluginConfig: .object(own), file: file,
      sandbox: sandbox)
    spec.room = room
    return spec
  }

  /// A room as the dashboard shows it: any words, but short and printable.
  static func isRoomName(_ text: String) -> Bool {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    return !trimmed.isEmpty && text.count <= 64
      && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
  }

  package func parseRoute(_ entry: JSONValue, index: Int, file: String, _ diagnostics: inout [ConfigDiagnostic])
    -> RouteSpec?
  {
    let key = "routes[\(index + 1)]"
    guard case .object(let members) = entry else {
      diagnostics.append(ConfigDiagnostic(file: file, key: key, message: "must be a table"))
      return nil
    }
    let count = diagnostics.count
    func fail(_ field: String, _ message: String) {
      diagnostics.append(ConfigDiagnostic(file: file, key: "\(key).\(field)", message: message))
    }
    func addresses(_ field: String, _ value: JSONValue?) -> [PortAddress] {
      guard let value else { return [] }
      let texts: [JSONValue]
      if case .array(let items) = value { texts = items } else { texts = [value] }
      var result: [PortAddress] = []
      for text in texts {
        guard case .string(let string) = text, let address = PortAddress(string) else {
          fail(field, "must be \"INSTANCE.PORT\" or an array of them, got \(text.description)")
          continue
        }
        result.append(address)
      }
      return result
    }
    for (name, _) in members where !Self.routeKeys.contains(name) {
      fail(name, "unknown route key\(Suggestion.hint(for: name, in: Self.routeKeys))")
    }
    var from: PortAddress?
    switch entry["from"] {
    case .string(let text)?:
      from = PortAddress(text)
      if from == nil { fail("from", "must be \"INSTANCE.PORT\", got \"\(text)\"") }
    case nil: fail("from", "missing required key: the output port this route reads")
    case let other?: fail("from", "must be \"INSTANCE.PORT\", got \(other.description)")
    }
    let to = addresses("to", entry["to"])
    let cycleTo = addresses("cycle_to", entry["cycle_to"])
    if entry["to"] == nil, entry["cycle_to"] == nil {
      fail("to", "missing required key: the input port(s) this route writes")
    }
    if entry["to"] != nil, entry["cycle_to"] != nil { fail("cycle_to", "use either `to` or `cycle_to`, not both") }
    if let cycle = entry["cycle_to"], case .array(let items) = cycle, items.count < 2 {
      fail("cycle_to", "needs at least two targets to alternate between")
    }
    var filter: [JSONValue]?
    if let value = entry["filter"] {
      if case .array(let items) = value, !items.isEmpty {
        filter = items
      } else {
        fail("filter", "must be a non-empty array of values to pass, e.g. [\"click\"]")
      }
    }
    var map: [(String, JSONValue)]?
    if let value = entry["map"] {
      if case .object(let pairs) = value, !pairs.isEmpty {
        map = pairs
      } else {
        fail("map", "must be a table from input value to output value, e.g. { click = true }")
      }
    }
    var cycle: [JSONValue]?
    if let value = entry["cycle"] {
      if case .array(let items) = value, items.count >= 2 {
        cycle = items
      } else {
        fail("cycle", "must be an array of at least two values to step through")
      }
    }
    var momentary: RouteSpec.Momentary?
    if let value = entry["momentary"] {
      if let reset = value["reset"], let after = value["after_ms"]?.doubleValue, after >= 0, after <= 86_400_000 {
        momentary = RouteSpec.Momentary(reset: reset, afterMs: Int(after))
      } else {
        fail("momentary", "must be { reset = VALUE, after_ms = MILLISECONDS }")
      }
    }
    var name: String?
    if let value = entry["name"] {
      if case .string(let text) = value { name = text } else { fail("name", "must be a string") }
    }
    var when: RouteCondition?
    if let value = entry["when"] {
      switch RouteCondition.parse(value) {
      case .success(let condition): when = condition
      case .failure(let error): fail("when", error.message)
      }
    }
    guard diagnostics.count == count, let from else { return nil }
    return RouteSpec(
      index: index, name: name, from: from, to: to, cycleTo: cycleTo, filter: filter, map: map, value: entry["value"],
      cycle: cycle, momentary: momentary, when: when, file: file)
  }

  package static func resolve(_ path: String, relativeTo base: String) -> String {
    if path.hasPrefix("/") || base.isEmpty { return path }
    return (base as NSString).appendingPathComponent(path)
  }
}
