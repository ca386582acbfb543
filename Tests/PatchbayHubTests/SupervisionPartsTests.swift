import PatchbayValues
import Testing

@testable import PatchbayCore

/// The supervisor's parts that are plain values: hang detection, the inputs in flight, the
/// counters. Each on its own, without a process or a clock.
@Suite struct HeartbeatMonitorTests {
  func tick(_ monitor: inout HeartbeatMonitor, at now: Double, backPressured: Bool = false) -> HeartbeatMonitor.Action?
  {
    monitor.tick(now: now, interval: 2, hangTimeout: 10, backPressured: backPressured)
  }

  @Test func aHeartbeatEveryIntervalWhileAnswered() {
    var monitor = HeartbeatMonitor()
    monitor.processBegan(now: 0)
    #expect(tick(&monitor, at: 1) == nil)
    #expect(tick(&monitor, at: 2) == .send(sequence: 1))
    monitor.sent(1, fitted: true)
    #expect(tick(&monitor, at: 3) == nil, "one outstanding at a time")
    monitor.answered(1)
    #expect(tick(&monitor, at: 3.5) == nil)
    #expect(tick(&monitor, at: 4) == .send(sequence: 2))
  }

  @Test func noAnswerForTheHangTimeoutIsAHang() {
    var monitor = HeartbeatMonitor()
    monitor.processBegan(now: 0)
    #expect(tick(&monitor, at: 2) == .send(sequence: 1))
    monitor.sent(1, fitted: true)
    monitor.answered(7)  // a number it never sent changes nothing
    #expect(tick(&monitor, at: 12) == nil)
    #expect(tick(&monitor, at: 12.5) == .hung(seconds: 10.5))
  }

  @Test func aHeartbeatThatDidNotFitIsSentAgain() {
    var monitor = HeartbeatMonitor()
    monitor.processBegan(now: 0)
    #expect(tick(&monitor, at: 2) == .send(sequence: 1))
    monitor.sent(1, fitted: false)
    #expect(tick(&monitor, at: 2.1) == .send(sequence: 1))
    monitor.sent(1, fitted: true)
    #expect(tick(&monitor, at: 2.2) == nil)
  }

  /// While the hub holds the process's answers back, no hang is counted; afterwards the clock
  /// starts again.
  @Test func backPressureIsNoHang() {
    var monitor = HeartbeatMonitor()
    monitor.processBegan(now: 0)
    #expect(tick(&monitor, at: 2) == .send(sequence: 1))
    monitor.sent(1, fitted: true)
    #expect(tick(&monitor, at: 30, backPressured: true) == nil)
    monitor.backPressureEnded(now: 31)
    #expect(tick(&monitor, at: 40) == nil)
    #expect(tick(&monitor, at: 41.5) == .hung(seconds: 10.5))
  }

  /// A slow consumer whose socket the hub keeps full of inputs: its heartbeat waits behind
  /// them, but each input it finishes shows its context runs. Once it finishes none, the
  /// hang timeout counts again.
  @Test func finishedInputsAreNoHang() {
    var monitor = HeartbeatMonitor()
    monitor.processBegan(now: 0)
    func tick(at now: Double, finished: UInt64) -> HeartbeatMonitor.Action? {
      monitor.tick(now: now, interval: 2, hangTimeout: 10, backPressured: false, inputsFinished: finished)
    }
    #expect(tick(at: 1, finished: 100) == nil)
    #expect(tick(at: 2, finished: 200) == .send(sequence: 1))
    monitor.sent(1, fitted: false)
    #expect(tick(at: 11, finished: 900) == .send(sequence: 1), "still not fitted: tried again")
    #expect(tick(at: 20, finished: 1800) == .send(sequence: 1), "no hang: inputs were finished")
    #expect(tick(at: 29, finished: 1800) == .send(sequence: 1))
    #expect(tick(at: 30.5, finished: 1800) == .hung(seconds: 10.5), "nothing finished since 20")
  }

  func due(_ monitor: HeartbeatMonitor, at now: Double, backPressured: Bool = false) -> Double? {
    monitor.nextDue(now: now, interval: 2, hangTimeout: 10, backPressured: backPressured, retry: 0.1)
  }

  /// The hub's ticker sleeps until `nextDue`: a tick at that time (or just past a hang
  /// deadline) acts, one before it does nothing.
  @Test func nextDueIsWhenTheTickActs() {
    var monitor = HeartbeatMonitor()
    monitor.processBegan(now: 0)
    #expect(due(monitor, at: 0.5) == 2)
    #expect(tick(&monitor, at: 1.99) == nil)
    #expect(tick(&monitor, at: 2) == .send(sequence: 1))
    monitor.sent(1, fitted: false)
    #expect(due(monitor, at: 2).map { abs($0 - 2.1) < 1e-9 } == true, "a heartbeat that did not fit is retried")
    monitor.sent(1, fitted: true)
    #expect(due(monitor, at: 2.1) == 12, "the hang deadline")
    #expect(tick(&monitor, at: 12) == nil, "hung is longer than the timeout")
    #expect(tick(&monitor, at: 12.25) == .hung(seconds: 10.25))
    monitor.processBegan(now: 20)
    #expect(tick(&monitor, at: 22) == .send(sequence: 2))
    monitor.answered(2)
    #expect(due(monitor, at: 22.1) == 24)
    #expect(due(monitor, at: 23, backPressured: true) == nil, "back-pressure: due again once it ends")
  }
}

@Suite struct InFlightInputsTests {
  static func inputs(_ values: ClosedRange<Int64>) -> [DeliveryBatch.Input] {
    values.map { DeliveryBatch.Input(port: "level", kind: .event, value: .integer($0), hops: 1) }
  }

  @Test func whatTheHostFinishedIsForgotten() {
    var inFlight = InFlightInputs()
    inFlight.sent(Self.inputs(1...5), hostFinished: 3)
    let left = inFlight.processEnded(ledger: (taken: 5, finished: 5))
    #expect(left.unseen.isEmpty && left.dying == nil)
    #expect(inFlight.isEmpty)
  }

  /// Taken 3, finished 2: the third killed it (not retried), 4 and 5 go to the next process.
  @Test func aDeadProcessLeavesTheUnseenAndTheOneItDiedOn() {
    var inFlight = InFlightInputs()
    inFlight.sent(Self.inputs(1...5), hostFinished: 0)
    let left = inFlight.processEnded(ledger: (taken: 3, finished: 2))
    #expect(left.unseen.map(\.value) == [.integer(4), .integer(5)])
    #expect(left.dying?.value == .integer(3))
  }

  /// The hop records its input before sending it: a send that failed takes it back, unless
  /// the process's end has already given it back (then it must not be given back twice).
  @Test func aFailedSendIsWithdrawnOnce() {
    var inFlight = InFlightInputs()
    let first = inFlight.sent(Self.inputs(1...1)[0], hostFinished: 0)
    let withdrawn = inFlight.withdraw(first)
    #expect(withdrawn && inFlight.isEmpty)
    let second = inFlight.sent(Self.inputs(2...2)[0], hostFinished: 0)
    #expect(second == first, "the host never counted the withdrawn one")
    let left = inFlight.processEnded(ledger: (taken: 0, finished: 0))
    #expect(left.unseen.map(\.value) == [.integer(2)])
    let again = inFlight.withdraw(second)
    #expect(!again, "the process's end gave it back already")
  }

  /// The ledger is the plugin's page: counts past what was sent are clamped.
  @Test func anUntrustedLedgerIsClamped() {
    var inFlight = InFlightInputs()
    inFlight.processBegan()
    inFlight.sent(Self.inputs(1...2), hostFinished: nil)
    let left = inFlight.processEnded(ledger: (taken: .max, finished: .max))
    #expect(left.unseen.isEmpty && left.dying == nil)
    inFlight.processBegan()
    inFlight.sent(Self.inputs(1...2), hostFinished: nil)
    let none = inFlight.processEnded(ledger: nil)
    #expect(none.unseen.count == 2)
  }
}

@Suite struct InstanceCountersTests {
  @Test func reportedCountsSaturateAcrossProcesses() {
    var counters = InstanceCounters()
    counters.refusals.report(.max)
    #expect(counters.refusals.total == .max)
    counters.processEnded()
    counters.refusals.report(.max)
    #expect(counters.refusals.total == .max)
    counters.processEnded()
    counters.refusals.report(3)
    #expect(counters.refusals.total == .max)
  }

  @Test func countsOfSeveralProcessesAddUp() {
    var counters = InstanceCounters()
    counters.publishBusy.report(2)
    counters.processEnded()
    counters.publishBusy.report(5)
    #expect(counters.publishBusy.total == 7)
    InstanceCounters.bump(&counters.drops, by: .max)
    InstanceCounters.bump(&counters.drops)
    #expect(counters.drops == .max)
  }
}
