import Foundation
import PatchbayValues

/// Reads the main config file and `conf.d/*.toml` (in name order) into a `HubConfig`,
/// collecting every structural problem instead of stopping at the first.
public struct ConfigLoader: Sendable {
  /// Keys of an instance section that belong to the hub, not to the plugin.
  public static let hubInstanceKeys =
    ["plugin", "log_level", "restart"] + SupervisionKey.all.map(\.name) + ["sandbox", "room"]
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
    var reader = InstanceTableReader(prefix: prefix, file: file)
    for (key, value) in members { reader.read(key, value) }
    let spec = reader.spec(name: name)
    diagnostics += reader.diagnostics
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
    guard case .object(let members) = entry else {
      diagnostics.append(ConfigDiagnostic(file: file, key: "routes[\(index + 1)]", message: "must be a table"))
      return nil
    }
    // Field by field in the order a reader meets them, so the mistakes are listed that way.
    var reader = RouteTableReader(entry, index: index, file: file)
    reader.unknownKeys(members)
    let from = reader.from()
    let to = reader.addresses("to")
    let cycleTo = reader.addresses("cycle_to")
    reader.checkTargets()
    let filter = reader.array("filter", minimum: 1, "must be a non-empty array of values to pass, e.g. [\"click\"]")
    let map = reader.map()
    let cycle = reader.array("cycle", minimum: 2, "must be an array of at least two values to step through")
    let momentary = reader.momentary()
    let name = reader.name()
    let when = reader.condition()
    diagnostics += reader.diagnostics
    guard reader.diagnostics.isEmpty, let from else { return nil }
    return RouteSpec(
      index: index, name: name, from: from, to: to, cycleTo: cycleTo, filter: filter, map: map, value: entry["value"],
      cycle: cycle, momentary: momentary, when: when, file: file)
  }

  package static func resolve(_ path: String, relativeTo base: String) -> String {
    if path.hasPrefix("/") || base.isEmpty { return path }
    return (base as NSString).appendingPathComponent(path)
  }
}
