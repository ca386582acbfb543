import Foundation
import PatchbayValues
import PatchbayWire

@testable import PatchbayCore

/// The in-memory plugin world a hub under test runs in: which ports each instance declares,
/// the channels launched so far, and every input each instance received, in order.
final class EmbeddedPlugins: Sendable {
  private let blueprints: [String: [PortDescriptor]]
  private let state = Guarded(World())

  private struct World {
    var nextPid: Int32 = 100_000
    var current: [String: EmbeddedPlugin] = [:]
    var launches: [String: Int] = [:]
    var inputs: [String: [(port: String, value: Value)]] = [:]
    var slow: Set<String> = []
    var exitWithinLaunch: Set<String> = []
  }

  /// `blueprints`: instance name to the ports its plugin declares.
  init(_ blueprints: [String: [PortDescriptor]]) { self.blueprints = blueprints }

  var launcher: PluginLauncher {
    { [self] _, instance, _, _, delegate in
      let plugin = state.change { world -> EmbeddedPlugin in
        world.nextPid += 1
        let plugin = EmbeddedPlugin(
          pid: world.nextPid, instance: instance, ports: blueprints[instance] ?? [], world: self, delegate: delegate)
        world.current[instance] = plugin
        world.launches[instance, default: 0] += 1
        return plugin
      }
      if state.change({ $0.exitWithinLaunch.remove(instance) != nil }) {
        // Its exit reaches the supervisor before the launcher returns the channel.
        plugin.crash()
        plugin.settle()
      }
      return plugin
    }
  }

  /// The next process of `instance` ends before its launcher returns (a host that dies at once,
  /// its waiter quicker than the launcher).
  func exitWithinNextLaunch(_ instance: String) { state.change { _ = $0.exitWithinLaunch.insert(instance) } }

  /// The channel of `instance`'s current process (the newest launched).
  func plugin(_ instance: String) -> EmbeddedPlugin? { state.withLock { $0.current[instance] } }

  func launches(of instance: String) -> Int { state.withLock { $0.launches[instance] ?? 0 } }

  func inputs(of instance: String) -> [(port: String, value: Value)] { state.withLock { $0.inputs[instance] ?? [] } }

  /// Lets the answers already on their way from every current plugin arrive.
  func settle() {
    for plugin in state.withLock({ Array($0.current.values) }) { plugin.settle() }
  }

  func record(instance: String, port: String, value: Value) {
    state.change { $0.inputs[instance, default: []].append((port, value)) }
  }

  /// Waits until `condition` holds; false at the deadline. It looks again whenever the plugin
  /// world changes, and at least every 20 ms (the condition may read the hub's status too).
  @discardableResult
  func waitFor(seconds: Double = 10, _ condition: (EmbeddedPlugins) -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !condition(self) {
      if Date() >= deadline { return false }
      var looked = false
      state.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.02))) { _, timedOut -> Guarded<World>.Step<Void> in
        defer { looked = true }
        return looked || timedOut ? .done(()) : .wait
      }
    }
    return true
  }

  // MARK: A slow consumer

  func setSlow(_ instance: String, _ slow: Bool) {
    state.change { world in
      if slow { world.slow.insert(instance) } else { world.slow.remove(instance) }
    }
  }

  func isSlow(_ instance: String) -> Bool { state.withLock { $0.slow.contains(instance) } }

  /// Holds an input's sender while `instance` is slow; false when `ended` became true first.
  func waitWhileSlow(_ instance: String, unless ended: @escaping () -> Bool) -> Bool {
    state.wait { world, _ in
      if ended() { return .done(false) }
      return world.slow.contains(instance) ? .wait : .done(true)
    }
  }

  func wakeSlowSenders() { state.broadcast() }
}
