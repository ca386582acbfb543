import Foundation
import PatchbayValues
import Synchronization

extension Hub {
  /// The reload itself, after the new config passed `check`.
  package func applyReload(_ newConfig: HubConfig) -> ReloadSummary {
    reloading.withLock { _ in applyReloadSerially(newConfig) }
  }

  private func applyReloadSerially(_ newConfig: HubConfig) -> ReloadSummary {
    let current = instances
    let wanted = Dictionary(uniqueKeysWithValues: newConfig.instances.map { ($0.name, $0) })
    var summary = ReloadSummary(started: [], stopped: [], restarted: [], unchanged: [])
    var retiring: [InstanceSupervisor] = []
    var launching: [InstanceSupervisor] = []
    for (name, supervisor) in current {
      guard let spec = wanted[name] else {
        retiring.append(supervisor)
        summary.stopped.append(name)
        continue
      }
      if spec.identity == supervisor.spec.identity {
        summary.unchanged.append(name)
      } else {
        retiring.append(supervisor)
        launching.append(makeSupervisor(spec))
        summary.restarted.append(name)
      }
    }
    for spec in newConfig.instances where current[spec.name] == nil {
      launching.append(makeSupervisor(spec))
      summary.started.append(spec.name)
    }
    tables.withLock { $0.config = newConfig }
    let toStop = retiring
    DispatchQueue.concurrentPerform(iterations: toStop.count) { toStop[$0].stop() }
    for supervisor in retiring { supervisor.shutdown() }
    tables.withLock { tables in
      for supervisor in retiring { tables.instances.removeValue(forKey: supervisor.spec.name) }
      for supervisor in launching { tables.instances[supervisor.spec.name] = supervisor }
      instancesVersion.add(1, ordering: .releasing)
    }
    for supervisor in launching { supervisor.launch(holdStart: true) }
    waitUntilCreated(launching)
    do throws(ConfigErrors) {
      try installRoutes(newConfig.routes, scenes: newConfig.scenes)
    } catch {
      // check() passed, so only a plugin that changed its mind about its ports gets here.
      logger.error("routes after reload: \(error)")
    }
    pruneRetainedValues()
    for supervisor in launching { supervisor.allowStart() }
    summary.started.sort()
    summary.stopped.sort()
    summary.restarted.sort()
    summary.unchanged.sort()
    logger.notice("reloaded: \(summary)")
    retireRemovedInstances()
    return summary
  }
}

/// What a reload changed, for the log and the `reload` command's answer.
public struct ReloadSummary: Sendable, Codable, CustomStringConvertible {
  public var started: [String]
  public var stopped: [String]
  public var restarted: [String]
  public var unchanged: [String]

  public var description: String {
    func list(_ names: [String]) -> String { names.isEmpty ? "none" : names.joined(separator: ", ") }
    return
      "started \(list(started)); stopped \(list(stopped)); restarted \(list(restarted)); unchanged \(list(unchanged))"
  }
}
