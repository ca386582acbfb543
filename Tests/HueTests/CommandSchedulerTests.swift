import HueProtocol
import Testing

@testable import HuePlugin

/// The scheduler's rules on a simulated clock: a bridge that answers instantly unless told.
@Suite struct CommandSchedulerTests {
  var scheduler = CommandScheduler(limits: .init(groupRate: 1, lightRate: 10, maxInFlight: 3, retryMaxSeconds: 4))

  /// Runs the clock from `start` to `end` in 10 ms steps, delivering every dispatch at once;
  /// `submit` is called at each step first. Returns the dispatches with their send times.
  mutating func run(
    from start: Double, to end: Double, submit: (inout CommandScheduler, Double) -> Void = { _, _ in }
  ) -> [(time: Double, dispatch: CommandScheduler.Dispatch)] {
    var sent: [(Double, CommandScheduler.Dispatch)] = []
    var now = start
    while now <= end {
      submit(&scheduler, now)
      while let dispatch = scheduler.nextDispatch(now: now) {
        sent.append((now, dispatch))
        scheduler.delivered(dispatch, now: now)
      }
      now += 0.01
    }
    return sent
  }

  @Test mutating func aFloodIntoAGroupIsPacedAndEndsWithTheLastCommand() {
    let sent = run(from: 0, to: 11) { scheduler, now in
      let step = Int((now * 100).rounded())
      guard step < 1000 else { return }
      scheduler.submit(HueStateChange(on: true, bri: 1 + step % 254, hue: step), to: .group("1"), now: now)
    }
    #expect(sent.allSatisfy { $0.dispatch.target == .group("1") })
    #expect(sent.count >= 9 && sent.count <= 11)
    for (earlier, later) in zip(sent, sent.dropFirst()) { #expect(later.time - earlier.time >= 1.0) }
    #expect(sent.last?.dispatch.change == HueStateChange(on: true, bri: 1 + 999 % 254, hue: 999))
  }

  @Test mutating func lightCommandsStayUnderTheLightRate() {
    let sent = run(from: 0, to: 3) { scheduler, now in
      guard now < 2 else { return }
      let step = Int((now * 100).rounded())
      scheduler.submit(HueStateChange(bri: 1 + step % 254), to: .light("\(1 + step % 5)"), now: now)
    }
    let times = sent.map(\.time)
    for (index, time) in times.enumerated() {
      #expect(times[index...].prefix { $0 < time + 1 }.count <= 10)
    }
    #expect(sent.count >= 18)
  }

  @Test mutating func waitingCommandsMergeAndNewerFieldsWin() {
    scheduler.submit(HueStateChange(on: true, hue: 100, sat: 10), to: .group("1"), now: 0)
    let first = scheduler.nextDispatch(now: 0)
    #expect(first?.change == HueStateChange(on: true, hue: 100, sat: 10))
    scheduler.delivered(first!, now: 0)
    scheduler.submit(HueStateChange(bri: 5), to: .group("1"), now: 0.1)
    scheduler.submit(HueStateChange(bri: 9, ct: 200), to: .group("1"), now: 0.2)
    #expect(scheduler.nextDispatch(now: 0.5) == nil)
    #expect(scheduler.nextWakeup(now: 0.5) == 1.0)
    #expect(scheduler.nextDispatch(now: 1.05)?.change == HueStateChange(bri: 9, ct: 200))
  }

  @Test mutating func atMostThreeInFlightAndOnePerTarget() {
    for light in 1...5 { scheduler.submit(HueStateChange(bri: light), to: .light("\(light)"), now: 0) }
    var inFlight: [CommandScheduler.Dispatch] = []
    var now = 0.0
    while now < 2 {
      while let dispatch = scheduler.nextDispatch(now: now) { inFlight.append(dispatch) }
      now += 0.01
    }
    #expect(inFlight.count == 3)
    scheduler.delivered(inFlight[0], now: now)
    scheduler.submit(HueStateChange(bri: 77), to: inFlight[1].target, now: now)
    let next = scheduler.nextDispatch(now: now + 1)
    #expect(next != nil && next?.target != inFlight[1].target)
  }

  @Test mutating func aFailedCommandIsKeptUnderNewerOnesAndRetriedAfterBackOff() throws {
    scheduler.submit(HueStateChange(on: true, hue: 1, sat: 2), to: .group("1"), now: 0)
    let firstNext = scheduler.nextDispatch(now: 0)
    let first = try #require(firstNext)
    scheduler.submit(HueStateChange(hue: 3), to: .group("1"), now: 0.1)
    let delay = scheduler.failed(first, now: 0.2)
    #expect(delay >= 0.4 && delay <= 0.6)
    #expect(scheduler.nextDispatch(now: 0.2 + delay - 0.01) == nil)
    let retryNext = scheduler.nextDispatch(now: 1.2 + delay)
    let retry = try #require(retryNext)
    #expect(retry.change == HueStateChange(on: true, hue: 3, sat: 2))
    let second = scheduler.failed(retry, now: 2)
    #expect(second >= 0.8 && second <= 1.2)
    scheduler.bridgeAnswered(now: 2.1)
    #expect(scheduler.nextDispatch(now: 3.2)?.change == HueStateChange(on: true, hue: 3, sat: 2))
  }

  @Test mutating func membersSetToOneValueBecomeOneGroupAction() {
    scheduler.setGroupMembers(["1": ["1", "2", "3"], "0": ["1", "2", "3", "4"]])
    for light in ["1", "2", "3"] { scheduler.submit(HueStateChange(on: true, hue: 42), to: .light(light), now: 0) }
    let dispatch = scheduler.nextDispatch(now: 0)
    #expect(dispatch?.target == .group("1"))
    #expect(dispatch?.change == HueStateChange(on: true, hue: 42))
    #expect(scheduler.waitingCount == 0)
  }

  @Test mutating func aGroupCommandOverridesOlderMemberCommandsAndNewerOnesWaitForIt() throws {
    scheduler.setGroupMembers(["1": ["1", "2"]])
    scheduler.submit(HueStateChange(bri: 10, hue: 5), to: .light("1"), now: 0)
    scheduler.submit(HueStateChange(bri: 200), to: .group("1"), now: 0)
    scheduler.submit(HueStateChange(hue: 9), to: .light("2"), now: 0)
    let light1Next = scheduler.nextDispatch(now: 0.05)
    let light1 = try #require(light1Next)
    #expect(light1 == .init(id: light1.id, target: .light("1"), change: HueStateChange(hue: 5), sequence: 1))
    let groupNext = scheduler.nextDispatch(now: 0.05)
    let group = try #require(groupNext)
    #expect(group.target == .group("1"))
    #expect(scheduler.nextDispatch(now: 0.5) == nil)  // light 2 is newer than the group action in flight
    scheduler.delivered(group, now: 0.4)
    #expect(scheduler.nextDispatch(now: 0.5)?.target == .light("2"))
  }
}
