import Foundation
import PatchbayValues

/// What one instance may touch: its `sandbox` table plus what the hub derives from the
/// instance's own config, by one plugin-agnostic rule (docs/configuration.md, "Sandbox"):
/// - read: every string value that is an absolute path (a `.py` file: its folder, which the
///   module imports from); the plugin's library;
/// - read and write: the instance's state directory; the path under a key `record` or ending
///   in `_output` (a file the plugin writes; the hub creates it, empty, where it is missing);
/// - connect: every integer under a key `port` or `*_port`, the port of every `host:port` or
///   `scheme://host[:port]` string (a URL without a port: its scheme's), DNS over TCP (53),
///   and where none of these names a port, the bundled plugin's default (flic 5551, mqtt
///   1883/8883, hue 80/443);
/// - Unix sockets: refused, but for the bundled plugins that talk to D-Bus (the system bus, or
///   avahi-daemon through it) and an instance whose `sandbox.unix_sockets = true`. Landlock
///   cannot confine connect(2) to a named socket, so the grant is all or nothing.
/// The system's libraries and the few system files every plugin needs are granted by the
/// plugin host itself (`Sandbox.swift`).
public struct SandboxPolicy: Sendable, Equatable, Codable {
  public var enabled: Bool
  public var read: [String]
  public var write: [String]
  public var connect: [Int]
  public var bind: [Int]
  public var networkAny: Bool
  /// May create Unix sockets, and so connect to any named one its user can open.
  public var unixSockets: Bool
  /// Files the plugin writes by its config (`record`, `*_output`): created before the host starts.
  public var outputs: [String]

  /// Ports a bundled plugin uses when its config names none.
  static let defaultPorts: [String: [Int]] = ["flic": [5551], "mqtt": [1883, 8883], "hue": [80, 443]]
  /// Bundled plugins whose peers' ports are not known from the config.
  static let anyPortPlugins: Set<String> = ["homekit-controller"]
  /// Bundled plugins that need the system bus (mDNS through avahi-daemon; BlueZ).
  static let unixSocketPlugins: Set<String> = ["homekit", "homekit-controller", "flic-ble"]
  static let schemePorts: [String: Int] = [
    "http": 80, "https": 443, "ws": 80, "wss": 443, "mqtt": 1883, "mqtts": 8883, "tcp": 0,
  ]

  public init(spec: InstanceSpec, libraryPath: String, stateDirectory: String) {
    let settings = spec.sandbox
    enabled = settings.enabled
    // A HomeKit accessory listens on a port of its own choosing (and mDNS says which): a
    // homekit-controller instance may connect to any port.
    networkAny = settings.networkAny || Self.anyPortPlugins.contains(spec.plugin)
    unixSockets = settings.unixSockets || Self.unixSocketPlugins.contains(spec.plugin)
    var read: [String] = [libraryPath]
    var outputs: [String] = []
    var ports: [Int] = []
    Self.collect(spec.pluginConfig, key: "", read: &read, outputs: &outputs, ports: &ports)
    self.outputs = outputs
    if ports.isEmpty { ports = Self.defaultPorts[spec.plugin] ?? [] }
    self.read = Self.unique(read + settings.read)
    write = Self.unique([stateDirectory] + outputs + settings.write)
    connect = Self.unique((ports.isEmpty ? [] : [53]) + ports + settings.connect).sorted()
    bind = Self.unique(Self.defaultBind(spec) + settings.bind).sorted()
  }

  /// A bundled server plugin listens where its config says: homekit on `port`, else on a port
  /// the system picks (0: Landlock's rule for ephemeral ports).
  static func defaultBind(_ spec: InstanceSpec) -> [Int] {
    guard spec.plugin == "homekit" else { return [] }
    if case .object(let members) = spec.pluginConfig, let port = members.first(where: { $0.0 == "port" })?.1,
      case .integer(let number) = port
    {
      return [Int(number)]
    }
    return [0]
  }

  /// Landlock grants only what exists: the files the plugin writes by its config are created
  /// (empty, with their folder) before its host starts.
  public func createMissingOutputs() {
    for output in outputs where !FileManager.default.fileExists(atPath: output) {
      let folder = (output as NSString).deletingLastPathComponent
      try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      _ = FileManager.default.createFile(atPath: output, contents: nil)
    }
  }

  /// The plugin host's arguments (see PluginHost/Sandbox.swift).
  public var hostArguments: [String] {
    guard enabled else { return ["--sandbox", "off"] }
    var arguments = ["--sandbox", "on"]
    for path in read { arguments += ["--sandbox-read", path] }
    for path in write { arguments += ["--sandbox-write", path] }
    if networkAny {
      arguments += ["--sandbox-network", "any"]
    } else {
      for port in connect { arguments += ["--sandbox-connect", String(port)] }
      for port in bind { arguments += ["--sandbox-bind", String(port)] }
    }
    if unixSockets { arguments += ["--sandbox-unix-sockets", "allow"] }
    return arguments
  }

  private static func collect(
    _ value: JSONValue, key: String, read: inout [String], outputs: inout [String], ports: inout [Int]
  ) {
    switch value {
    case .object(let members):
      for (name, member) in members where name != "sandbox" {
        collect(member, key: name, read: &read, outputs: &outputs, ports: &ports)
      }
    case .array(let items):
      for item in items { collect(item, key: key, read: &read, outputs: &outputs, ports: &ports) }
    case .string(let text) where text.hasPrefix("/") && (key == "record" || key.hasSuffix("_output")):
      outputs.append(text)
    case .integer(let number) where key == "port" || key.hasSuffix("_port"):
      if (1...65535).contains(number) { ports.append(Int(number)) }
    case .string(let text):
      if text.hasPrefix("/") {
        if text.hasSuffix(".py"), let slash = text.lastIndex(of: "/"), slash != text.startIndex {
          read.append(String(text[..<slash]))
        } else {
          read.append(text)
        }
      } else if let port = port(in: text) {
        ports.append(port)
      }
    default:
      break
    }
  }

  /// `scheme://host[:port][/...]` or `host:port` (an IPv6 address in brackets).
  static func port(in text: String) -> Int? {
    var rest = Substring(text)
    var scheme: String?
    if let range = text.range(of: "://") {
      scheme = text[..<range.lowerBound].lowercased()
      rest = text[range.upperBound...]
    }
    if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
    if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
    if let close = rest.lastIndex(of: "]") { rest = rest[rest.index(after: close)...] }
    if let colon = rest.lastIndex(of: ":"), rest.filter({ $0 == ":" }).count == 1 || rest.first == ":" {
      let digits = rest[rest.index(after: colon)...]
      // "07:30" is a time, not a host and a port.
      let host = rest[..<colon]
      guard scheme != nil || host.isEmpty || !host.allSatisfy(\.isNumber) else { return nil }
      if !digits.isEmpty, digits.allSatisfy(\.isNumber), let port = Int(digits), (1...65535).contains(port) {
        return port
      }
      return nil
    }
    if let scheme, let port = schemePorts[scheme], port > 0 { return port }
    return nil
  }

  private static func unique<T: Hashable>(_ items: [T]) -> [T] {
    var seen: Set<T> = []
    return items.filter { seen.insert($0).inserted }
  }
}
