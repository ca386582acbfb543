import Dispatch
import HAP
import PatchbayValues
import Synchronization
import Testing

@testable import HomeKitPlugin

/// Controllers' writes are kept without holding up their answer: `keep` returns while a save is
/// still running, the newest values win, and `flush` returns once they are saved.
struct WrittenValuesKeeperTests {
  let lamp = HAPCharacteristicID(aid: 2, iid: 10)

  @Test func keepReturnsWhileASaveRunsAndTheNewestValuesAreSavedLast() {
    let saved = Mutex<[JSONValue?]>([])
    let started = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    let gateTimedOut = Mutex(false)
    let lamp = self.lamp
    let keeper = WrittenValuesKeeper { values in
      if saved.withLock({ $0.isEmpty }) {
        started.signal()
        // A save in the caller's thread would wait here for ever: the test opens the gate only
        // after `keep` has returned. 120 s, then the test fails instead of hanging.
        if gate.wait(timeout: .now() + 120) == .timedOut { gateTimedOut.withLock { $0 = true } }
      }
      saved.withLock { $0.append(values[lamp]) }
    }
    keeper.keep([lamp: .bool(true)])
    #expect(started.wait(timeout: .now() + 120) == .success, "the first save never started")
    keeper.keep([lamp: .bool(false)])
    keeper.keep([lamp: .integer(1)])
    gate.signal()
    keeper.flush()
    #expect(!gateTimedOut.withLock { $0 }, "keep waited for the save")
    // The first values, then only the newest of the two that came while it was saved.
    #expect(saved.withLock { $0 } == [.bool(true), .integer(1)])
  }

  @Test func flushWithNothingPendingSavesNothing() {
    let saves = Mutex(0)
    let keeper = WrittenValuesKeeper { _ in saves.withLock { $0 += 1 } }
    keeper.flush()
    keeper.keep([lamp: .bool(true)])
    keeper.flush()
    keeper.flush()
    #expect(saves.withLock { $0 } == 1)
  }
}
