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

/// A configured back-off of 0 ms does not make a crash loop spin: the minimum applies from the
/// second restart on, the first stays as configured.
@Suite struct MinimumBackOffTests {
  @Test func aZeroBackOffStillSlowsACrashLoop() {
    var settings = SupervisionSettings()
    settings.backoffInitial = 0
    settings.backoffMax = 0
    settings.maxRestarts = 1000
    var planner = RestartPlanner(settings: settings)
    var delays: [Double] = []
    for second in 0..<7 {
      if case .restart(let delay, _) = planner.decide(after: .signaled(6), ranFor: 0.01, now: Double(second), jitter: 1)
      {
        delays.append(delay)
      }
    }
    #expect(delays == [0, 0.2, 0.4, 0.8, 1, 1, 1])
    #expect(RestartPlanner.clampNote(settings) != nil)
    #expect(RestartPlanner.clampNote(SupervisionSettings()) == nil)
  }
}

/// Crash after crash of the same kind: the first ones in full, then a summary a minute.
@Suite struct CrashLogBudgetTests {
  @Test func aLoopOfTheSameCrashIsSummarised() {
    var budget = CrashLogBudget()
    var admissions: [CrashLogBudget.Admission] = []
    for index in 0..<20 { admissions.append(budget.crash(now: Double(index), reason: "killed by signal SIGABRT")) }
    #expect(admissions.prefix(5).allSatisfy { $0 == .log })
    #expect(admissions[5] == .logAndSummariseFromNow(count: 6, seconds: 5))
    #expect(admissions.dropFirst(6).allSatisfy { $0 == .count })
    let lineWhileQuiet = budget.admitLine()
    #expect(!lineWhileQuiet)
    // A crash of another kind is news.
    let other = budget.crash(now: 21, reason: "killed by signal SIGSEGV")
    #expect(other == .log)
    let early = budget.dueSummary(now: 30)
    #expect(early == nil)
    let summary = budget.dueSummary(now: 66)
    #expect(summary?.crashes == 14)
    #expect(summary?.lines == 1)
    // A quiet minute: crashes are logged in full again.
    let calm = budget.dueSummary(now: 130)
    #expect(calm == nil)
    let lineAfter = budget.admitLine()
    #expect(lineAfter)
    let again = budget.crash(now: 131, reason: "killed by signal SIGABRT")
    #expect(again == .log)
  }

  @Test func differentCrashesAreEachLogged() {
    var budget = CrashLogBudget()
    for index in 0..<12 {
      let admission = budget.crash(now: Double(index), reason: index % 2 == 0 ? "SIGSEGV" : "exit 3")
      #expect(admission == .log)
    }
  }
}
