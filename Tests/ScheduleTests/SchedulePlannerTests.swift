import ScheduleProtocol
import Testing

/// Firing, missing and catching up, with the time passed in: downtime, restarts, clock jumps.
struct SchedulePlannerTests {
  let cet: Int64 = 3600
  let morning = try! TriggerSpec(name: "morning", rule: .cron(CronExpression("30 6 * * *")))

  func planner(_ triggers: [TriggerSpec], state: ScheduleState = ScheduleState()) -> SchedulePlanner {
    SchedulePlanner(triggers: triggers, zone: berlin, state: state)
  }

  @Test func firesOnTimeOnceAndArmsTheNext() {
    var plan = planner([morning])
    let start = instant(2026, 11, 24, 6, 0, offset: cet)
    let first = plan.settle(now: start)
    #expect(first.firings.isEmpty && first.stateChanged)
    let at = instant(2026, 11, 24, 6, 30, offset: cet)
    #expect(first.nextOccurrence == at)
    #expect(first.wake(now: start) == start + SchedulePlanner.recheck)
    // A recheck before the time: nothing, nothing to save.
    let early = plan.settle(now: start + 60)
    #expect(early.firings.isEmpty && !early.stateChanged)
    // The timer, a moment late.
    let fired = plan.settle(now: at + 1)
    #expect(fired.firings == [.init(trigger: "morning", occurrence: at, caughtUp: false)])
    #expect(fired.stateChanged && fired.nextOccurrence == at + 86400)
    #expect(plan.state.triggers["morning"]?.lastFired == at)
    #expect(plan.state.triggers["morning"]?.handledThrough == at + 1)
    // Woken again at once (or the clock stepped back): no second firing.
    #expect(plan.settle(now: at + 2).firings.isEmpty)
    #expect(plan.settle(now: at - 600).firings.isEmpty)
  }

  @Test func aRestartAfterFiringDoesNotFireAgain() {
    var plan = planner([morning])
    let at = instant(2026, 11, 24, 6, 30, offset: cet)
    _ = plan.settle(now: at - 100)
    #expect(plan.settle(now: at).firings.count == 1)
    var restarted = planner([morning], state: plan.state)
    #expect(restarted.settle(now: at + 5).firings.isEmpty)
  }

  @Test func downtimeWithSkipLogsAndFiresNothing() {
    var plan = planner([morning])
    let at = instant(2026, 11, 24, 6, 30, offset: cet)
    _ = plan.settle(now: at - 3600)
    var restarted = planner([morning], state: plan.state)
    let settlement = restarted.settle(now: at + 300)
    #expect(settlement.firings.isEmpty)
    #expect(
      settlement.notes.map(\.message) == [
        "morning (cron 30 6 * * *): missed the occurrence of 2026-11-24 06:30 +01:00 while stopped; not fired (catch_up = \"skip\")"
      ])
    #expect(restarted.settle(now: at + 301).notes.isEmpty)
  }

  @Test func downtimeWithOnceFiresTheNewestWithinMaxLate() {
    var spec = morning
    spec.catchUp = .once
    spec.maxLate = 600
    let at = instant(2026, 11, 24, 6, 30, offset: cet)
    var plan = planner([spec])
    _ = plan.settle(now: at - 3 * 86400)
    // Down for three days; back 5 minutes after today's time: only today's fires, once.
    var restarted = planner([spec], state: plan.state)
    let settlement = restarted.settle(now: at + 300)
    #expect(settlement.firings == [.init(trigger: "morning", occurrence: at, caughtUp: true)])
    #expect(
      settlement.notes.first?.message.contains("catching up the occurrence of 2026-11-24 06:30 +01:00, 5 min late")
        == true)
    #expect(restarted.settle(now: at + 301).firings.isEmpty)
    // Back after max_late: nothing.
    var late = planner([spec], state: plan.state)
    let tooLate = late.settle(now: at + 601)
    #expect(tooLate.firings.isEmpty)
    #expect(tooLate.notes.first?.message.contains("older than max_late = 10 min") == true)
  }

  @Test func aClockJumpForwardPastATimeFiresItWhenStillOnTime() {
    var plan = planner([morning])
    let at = instant(2026, 11, 24, 6, 30, offset: cet)
    _ = plan.settle(now: at - 30)
    // The next wake comes 90 s later by the wall clock than planned.
    #expect(plan.settle(now: at + 90).firings.count == 1)
  }

  @Test func aChangedRuleStartsWithoutHistory() {
    var plan = planner([morning])
    let at = instant(2026, 11, 24, 6, 30, offset: cet)
    _ = plan.settle(now: at - 7200)
    let earlier = try! TriggerSpec(name: "morning", rule: .cron(CronExpression("0 6 * * *")), catchUp: .once)
    var changed = planner([earlier], state: plan.state)
    // 06:00 passed under the old rule: not a missed occurrence of the new one.
    let settlement = changed.settle(now: at)
    #expect(settlement.firings.isEmpty && settlement.notes.isEmpty)
    #expect(changed.state.triggers["morning"]?.rule == "cron 0 6 * * *")
  }

  @Test func aOneShotFiresOnceAndAPastOneFollowsCatchUp() throws {
    let at = instant(2026, 11, 24, 12, 0, 5, offset: 0)
    let shot = TriggerSpec(name: "alarm", rule: .at(try OneShotTime("2026-11-24T12:00:05Z")))
    var plan = planner([shot])
    #expect(plan.settle(now: at - 10).nextOccurrence == at)
    #expect(plan.settle(now: at).firings.count == 1)
    let after = plan.settle(now: at + 1)
    #expect(after.firings.isEmpty && after.nextOccurrence == nil)
    // First seen after its time: missed; with catch_up = once within max_late it fires.
    var caughtUp = shot
    caughtUp.catchUp = .once
    var fresh = planner([caughtUp])
    #expect(fresh.settle(now: at + 200).firings == [.init(trigger: "alarm", occurrence: at, caughtUp: true)])
    var skipped = planner([shot])
    #expect(skipped.settle(now: at + 200).firings.isEmpty)
  }

  @Test func polarNightIsLoggedOnce() {
    let tromso = TriggerSpec(
      name: "up", rule: .sun(SunSchedule(event: .sunrise, latitude: 69.6496, longitude: 18.956)))
    var plan = SchedulePlanner(triggers: [tromso], zone: zone("Europe/Oslo"), state: ScheduleState())
    let start = instant(2026, 12, 10, 12, 0, offset: 3600)
    let first = plan.settle(now: start)
    #expect(first.notes.count == 1)
    #expect(first.notes.first?.message.hasPrefix("up: no sunrise from 2026-12-10 to 2027-01-") == true)
    #expect(plan.settle(now: start + 60).notes.isEmpty)
    #expect(plan.settle(now: start + 86400).notes.isEmpty)
  }

  @Test func aLongDowntimeOfAFrequentTriggerIsSettledQuickly() throws {
    let every = TriggerSpec(
      name: "minute", rule: .cron(try CronExpression("* * * * *")), catchUp: .once,
      maxLate: TriggerSpec.longestMaxLate)
    let stopped = instant(2026, 1, 1, 0, 0, offset: cet)
    var plan = planner(
      [every], state: ScheduleState(triggers: ["minute": .init(handledThrough: stopped, rule: "cron * * * * *")]))
    let now = instant(2026, 11, 24, 12, 0, 30, offset: cet)
    let clock = ContinuousClock()
    let started = clock.now
    let settlement = plan.settle(now: now)
    #expect(clock.now - started < .seconds(5))
    #expect(settlement.firings == [.init(trigger: "minute", occurrence: now - 30, caughtUp: false)])
    #expect(settlement.notes.first?.message.contains("missed the occurrences from 2026-01-01 00:01 +01:00") == true)
  }

  @Test func forgetsTriggersNoLongerConfigured() {
    var plan = planner(
      [morning], state: ScheduleState(triggers: ["gone": .init(handledThrough: 0, rule: "cron 0 0 * * *")]))
    #expect(plan.settle(now: 1_000_000).stateChanged)
    #expect(plan.state.triggers.keys.sorted() == ["morning"])
  }
}
