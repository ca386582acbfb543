import Foundation
import Logging
import PatchbayValues
import Synchronization

/// Scenes: `patchbay scene NAME`, `send scene.NAME` or a route into `scene.NAME` hands out
/// every value of the scene, then announces `scene.NAME.activated`.
extension Hub {
  /// `patchbay scene NAME` and `patchbay send scene.NAME`: refused for an unknown scene.
  public func activate(scene name: String) throws(ControlError) {
    guard tables.withLock({ $0.scenes[name] }) != nil else {
      let names = tables.withLock { Array($0.scenes.keys) }.sorted()
      throw ControlError(
        "unknown scene '\(name)'" + Suggestion.hint(for: name, in: names)
          + " (scenes: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
    }
    handOut(scene: name)
  }

  /// Hands every value of the scene to its port at once (state inputs keep only the newest,
  /// events queue in order; an instance that is down gets them when it is back), then
  /// publishes `scene.NAME.activated`.
  package func handOut(scene name: String) {
    guard
      let scene = tables.withLock({ tables -> CompiledScene? in
        tables.sceneActivations[name, default: 0] += 1
        return tables.scenes[name]
      })
    else { return }
    var waiting: [String] = []
    var dropped: [String] = []
    for (target, port, value) in scene.values {
      guard let supervisor = instance(named: target.instance) else { continue }
      if supervisor.currentPhase != .running { waiting.append(target.description) }
      if !supervisor.deliver(value, to: port) { dropped.append(target.description) }
    }
    var note = "scene \(name): \(scene.values.count) values handed out"
    if !waiting.isEmpty {
      note += "; \(waiting.count) wait for instances that are not running (\(waiting.joined(separator: ", ")))"
    }
    if !dropped.isEmpty { note += "; \(dropped.count) dropped, queue full (\(dropped.joined(separator: ", ")))" }
    logger.notice("\(note)")
    route(.trigger, from: PortAddress(instance: SceneSpec.instanceName, port: name + ".activated"), kind: .event)
  }
}
