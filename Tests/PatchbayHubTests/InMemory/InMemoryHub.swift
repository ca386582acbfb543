import Foundation
import PatchbayValues

@testable import PatchbayCore

/// A whole hub (supervisors, inboxes, routes, scenes, reloads) on in-memory plugins, an
/// in-memory state storage and a clock the test moves: no processes, no sockets, no timers.
/// (Its config is loaded from a file, as the hub's is.)
struct InMemoryHub {
  let hub: Hub
  let plugins: EmbeddedPlugins
  let clock = ManualClock()
  let storage: MemoryStateStorage
  let directory: String

  /// `toml` is the config after `[hub]`; every instance's plugin is called `embedded`.
  /// `storage`: what an earlier hub saved (a hub restarted on the same state).
  init(_ toml: String, ports: [String: [PortDescriptor]], storage: MemoryStateStorage = MemoryStateStorage()) throws {
    directory = NSTemporaryDirectory() + "patchbay-inmemory-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory + "/plugins", withIntermediateDirectories: true)
    // The locator must find a library for the supervisor to launch; nothing ever loads it.
    FileManager.default.createFile(atPath: directory + "/plugins/embedded.so", contents: Data())
    plugins = EmbeddedPlugins(ports)
    self.storage = storage
    hub = Hub(config: try Self.load(toml, in: directory), launcher: plugins.launcher, storage: storage, clock: clock)
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

  /// Moves the hub's clock; the plugins' answers to what each timer set off arrive in between.
  func advance(by seconds: Double) { clock.advance(by: seconds) { plugins.settle() } }

  /// Waits (on real time) until `instance` is in `phase`: the plugins' answers and exits reach
  /// the supervisor on their own threads.
  func waitForPhase(_ phase: InstancePhase, of instance: String) -> Bool {
    plugins.waitFor { _ in status(instance)?.phase == phase }
  }

  /// Waits until `instance`'s process number `launch` runs.
  func waitForLaunch(_ launch: Int, of instance: String) -> Bool {
    plugins.waitFor { $0.launches(of: instance) == launch && status(instance)?.phase == .running }
  }

  /// `patchbay restart INSTANCE` (which runs on a dispatch thread of its own), waited for:
  /// returns when the supervisor holds the new process; false at the (generous) deadline.
  /// A test that crashed the new process before the supervisor held it would have its exit
  /// dropped (the supervisor ignores exits of processes that are not its current one), and
  /// every later stop would wait out its stop timeouts.
  @discardableResult
  func restart(_ instance: String) -> Bool {
    let launches = plugins.launches(of: instance)
    guard (try? hub.restart(instance: instance)) != nil, let supervisor = hub.instance(named: instance) else {
      return false
    }
    return plugins.waitFor(seconds: 60) { plugins in
      plugins.launches(of: instance) > launches && supervisor.pid != nil
        && supervisor.pid == plugins.plugin(instance)?.pid
    }
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
