import Testing

@testable import PatchbayCore

/// Back-off and intensity follow the config, checked with an explicit clock (no waiting).
@Suite struct RestartPlannerTests {
  func settings(_ change: (inout SupervisionSettings) -> Void = { _ in }) -> SupervisionSettings {
    var settings = SupervisionSettings()
    settings.backoffInitial = 0.5
    settings.backoffMax = 4
    settings.maxRestarts = 5
    settings.restartWindow = 60
    settings.stableAfter = 30
    change(&settings)
    return settings
  }

  @Test func backOffDoublesUpToTheMaximum() {
    var planner = RestartPlanner(settings: settings { $0.maxRestarts = 100 })
    var delays: [Double] = []
    for second in 0..<6 {
      if case .restart(let delay, _) = planner.decide(
        after: .signaled(11), ranFor: 1, now: Double(second), jitter: 1)
      {
        delays.append(delay)
      }
    }
    #expect(delays == [0.5, 1, 2, 4, 4, 4])
  }

  @Test func jitterScalesTheDelay() {
    var planner = RestartPlanner(settings: settings())
    #expect(planner.decide(after: .signaled(6), ranFor: nil, now: 0, jitter: 1.2) == .restart(delay: 0.6, attempt: 1))
  }

  @Test func intensityLimitFailsTheInstanceThenTheWindowSlides() {
    var planner = RestartPlanner(settings: settings())
    for second in 0..<5 {
      #expect(planner.decide(after: .exited(code: 1), ranFor: 1, now: Double(second), jitter: 1) != .stayStopped)
    }
    guard case .fail(let reason) = planner.decide(after: .exited(code: 1), ranFor: 1, now: 5, jitter: 1) else {
      Issue.record("sixth crash within the window must fail the instance")
      return
    }
    #expect(reason.contains("restarted 5 times within 60 s"))
    // Long after the window, a crash is restarted again.
    #expect(planner.decide(after: .exited(code: 1), ranFor: 1, now: 200, jitter: 1) != .stayStopped)
  }

  @Test func aStableRunResetsTheBackOff() {
    var planner = RestartPlanner(settings: settings { $0.maxRestarts = 100 })
    _ = planner.decide(after: .signaled(11), ranFor: 1, now: 0, jitter: 1)
    _ = planner.decide(after: .signaled(11), ranFor: 1, now: 1, jitter: 1)
    #expect(planner.decide(after: .signaled(11), ranFor: 45, now: 50, jitter: 1) == .restart(delay: 0.5, attempt: 3))
  }

  @Test func policiesFollowErlang() {
    var transient = RestartPlanner(settings: settings { $0.restart = .transient })
    #expect(transient.decide(after: .exited(code: 0), ranFor: 5, now: 0, jitter: 1) == .stayStopped)
    #expect(transient.decide(after: .signaled(6), ranFor: 5, now: 1, jitter: 1) == .restart(delay: 0.5, attempt: 1))
    var temporary = RestartPlanner(settings: settings { $0.restart = .temporary })
    guard case .fail = temporary.decide(after: .signaled(11), ranFor: 5, now: 0, jitter: 1) else {
      Issue.record("temporary never restarts")
      return
    }
    var permanent = RestartPlanner(settings: settings())
    #expect(permanent.decide(after: .exited(code: 0), ranFor: 5, now: 0, jitter: 1) == .restart(delay: 0.5, attempt: 1))
  }
}
