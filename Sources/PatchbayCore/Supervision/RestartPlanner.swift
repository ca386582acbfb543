/// The supervisor's restart decisions for one instance, as a value with an explicit clock:
/// policy, exponential back-off with jitter, the intensity limit, and the reset after a
/// stable run. Pure, so it is tested with made-up times instead of real waiting.
package struct RestartPlanner: Sendable {
  package enum Decision: Equatable, Sendable {
    /// Start again after `delay` seconds; this is restart number `attempt` in the window.
    case restart(delay: Double, attempt: Int)
    /// Do not restart; the instance is failed for `reason`.
    case fail(reason: String)
    /// Do not restart; the instance ended as it should (transient, normal exit).
    case stayStopped
  }

  package let settings: SupervisionSettings
  private(set) var restartTimes: [Double] = []
  private(set) var consecutiveFailures = 0

  package init(settings: SupervisionSettings) { self.settings = settings }

  /// `ranFor` is how long the process ran after it was started (nil if it never started);
  /// `jitter` is a factor in 0.8...1.2 (injected so tests are exact).
  package mutating func decide(after reason: ExitReason, ranFor: Double?, now: Double, jitter: Double) -> Decision {
    switch settings.restart {
    case .temporary:
      return .fail(reason: "ended (\(reason)); restart policy is temporary")
    case .transient where reason.isNormal:
      return .stayStopped
    default:
      break
    }
    if let ranFor, ranFor >= settings.stableAfter { consecutiveFailures = 0 }
    restartTimes = restartTimes.filter { now - $0 < settings.restartWindow }
    guard restartTimes.count < settings.maxRestarts else {
      return .fail(
        reason:
          "restarted \(settings.maxRestarts) times within \(Int(settings.restartWindow)) s; left down (last: \(reason))"
      )
    }
    restartTimes.append(now)
    let base = min(settings.backoffMax, settings.backoffInitial * pow(2, Double(consecutiveFailures)))
    consecutiveFailures += 1
    return .restart(delay: base * jitter, attempt: restartTimes.count)
  }

  /// `patchbay restart`: forget past failures.
  package mutating func reset() {
    restartTimes.removeAll()
    consecutiveFailures = 0
  }
}

#if canImport(Glibc)
  import Glibc
#endif
