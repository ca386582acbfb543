import Foundation
import PatchbayValues

@testable import PatchbayCore

/// A whole hub (supervisors, inboxes, routes, scenes, reloads) on in-memory plugins: no
/// processes, no sockets; only its state file goes to a temporary directory.
struct InMemoryHub {
  let hub: Hub
  let plugins: EmbeddedPlugins
  let directory: String

  /// `toml` is the config after `[hub]`; every instance's plugin is called `embedded`.
  init(_ toml: String, ports: [String: [PortDescriptor]]) throws {
    directory = NSTemporaryDirectory() + "patchbay-inmemory-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory + "/plugins", withIntermediateDirectories: true)
    // The locator must find a library for the supervisor to launch; nothing ever loads it.
    FileManager.default.createFile(atPath: directory + "/plugins/embedded.so", contents: Data())
    plugins = EmbeddedPlugins(ports)
    hub = Hub(config: try Self.load(toml, in: directory), launcher: plugins.launcher)
  }

  static func load(_ toml: String, in directory: String) throws -> HubConfig {
    let file = directory + "/hub-\(UUID().uuidString).toml"
    let text = """
      [hub]
      state_directory = "\(directory)/state"
      control_socket = "\(directory)/control.sock"
      plugin_path = ["\(directory)/plugins"]

      \(toml)
      """
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    switch ConfigLoader().load(mainFile: file) {
    case .success(let config): return config
    case .failure(let errors): throw errors
    }
  }

  func reload(_ toml: String) throws -> ReloadSummary {
    hub.applyReload(try Self.load(toml, in: directory))
  }

  func status(_ instance: String) -> InstanceStatus? { hub.status().instances.first { $0.name == instance } }

  func stop() {
    hub.stop()
    try? FileManager.default.removeItem(atPath: directory)
  }
}

extension PortDescriptor {
  static func input(_ name: String, _ type: ValueType, _ kind: PortKind = .event) -> PortDescriptor {
    PortDescriptor(name: name, direction: .input, kind: kind, type: type)
  }

  static func output(_ name: String, _ type: ValueType, _ kind: PortKind = .event) -> PortDescriptor {
    PortDescriptor(name: name, direction: .output, kind: kind, type: type)
  }
}
