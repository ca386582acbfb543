import PatchbayWire
import Testing

@testable import PatchbayCore
@testable import PatchbayHub

/// The hub's reader takes every queued frame in one system call, in order, and still sees an
/// oversized frame and the end of the stream.
@Suite struct FrameBatchReceiverTests {
  @Test func queuedFramesArriveInOrderSeveralPerCall() throws {
    let (hub, host) = try PacketSocket.pair()
    defer {
      hub.close()
      host.close()
    }
    for number in 0..<40 { #expect(host.send([UInt8(number), 1, 2, 3])) }
    host.close()
    let receiver = FrameBatchReceiver(limit: 1024)
    var frames: [[UInt8]] = []
    var calls = 0
    var ended = false
    while !ended {
      calls += 1
      for result in receiver.receiveCopies(from: hub) {
        switch result {
        case .frame(let frame): frames.append(frame)
        case .closed: ended = true
        case .oversized(let size): Issue.record("unexpected oversized frame of \(size) bytes")
        }
      }
    }
    #expect(frames == (0..<40).map { [UInt8($0), 1, 2, 3] })
    #expect(calls <= 4, "40 queued frames in at most 4 calls of 16, not one call each (\(calls) calls)")
  }

  @Test func anOversizedFrameEndsTheBatchWithItsSize() throws {
    let (hub, host) = try PacketSocket.pair()
    defer {
      hub.close()
      host.close()
    }
    #expect(host.send([1]))
    #expect(host.send([UInt8](repeating: 7, count: 300)))
    #expect(host.send([2]))
    let results = FrameBatchReceiver(limit: 100).receiveCopies(from: hub)
    guard results.count == 2, case .frame([1]) = results[0], case .oversized(300) = results[1] else {
      Issue.record("expected a frame, then oversized(300): \(results)")
      return
    }
  }
}
