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
    consecutiveFailures += 1
    return .restart(delay: Self.backoff(settings, failure: consecutiveFailures) * jitter, attempt: restartTimes.count)
  }

  /// However the back-off is configured, a crash loop is slowed down: the first restart after
  /// a stable run may be immediate (as configured), each further one doubles from at least
  /// `minimumStep` up to at least `minimumMax` (600 restarts a minute with 0 ms would be noise).
  package static let minimumStep = 0.1
  package static let minimumMax = 1.0

  /// The delay before restart number `failure` (1 = the first since a stable run), before jitter.
  package static func backoff(_ settings: SupervisionSettings, failure: Int) -> Double {
    guard failure > 1 else { return min(settings.backoffMax, settings.backoffInitial) }
    let step = max(settings.backoffInitial, minimumStep)
    return min(max(settings.backoffMax, minimumMax), step * pow(2, Double(failure - 1)))
  }

  /// What the supervisor changes about a configured back-off, said once in the log; nil when
  /// the config is above the minimums.
  package static func clampNote(_ settings: SupervisionSettings) -> String? {
    guard settings.backoffMax < minimumMax || settings.backoffInitial < minimumStep else { return nil }
    return
      "backoff_initial_ms = \(Int(settings.backoffInitial * 1000)), backoff_max_ms = \(Int(settings.backoffMax * 1000)): repeated crashes still wait from \(Int(minimumStep * 1000)) ms, doubling, up to at least \(Int(minimumMax * 1000)) ms (the first restart after a stable run is as configured)"
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
