import Dispatch
import PatchbayWire
import Synchronization
import Testing

@testable import PatchbayHub

/// The hub sends what one read routed to a consumer with one system call (`sendmmsg`): in
/// order, as many as fit without blocking, and it says how many went.
@Suite struct FrameBatchSendTests {
  @Test func framesGoOutInOrderMoreThanOneCallsWorth() throws {
    let (hub, host) = try PacketSocket.pair()
    defer {
      hub.close()
      host.close()
    }
    let frames = (0..<100).map { [UInt8($0), 9, 8] }
    #expect(hub.trySend(frames: frames) == 100)
    hub.close()
    #expect(receiveAll(from: host) == frames)
  }

  @Test func aFullSocketTakesAPrefixAndTheRestFollowsInOrder() throws {
    let (hub, host) = try PacketSocket.pair()
    defer {
      hub.close()
      host.close()
    }
    // Far more than a socket buffer holds: the send stops where it filled.
    let frames = (0..<2_000).map { number in
      [UInt8(number % 256), UInt8(number / 256)] + [UInt8](repeating: 0, count: 2_000)
    }
    let first = try #require(hub.trySend(frames: frames))
    #expect(first > 0 && first < frames.count, "a prefix went, not all: \(first) of \(frames.count)")
    var received = 0
    var sent = first
    var order: [[UInt8]] = []
    let receiver = FrameBatchReceiver(limit: 4_096)
    while received < frames.count {
      for case .frame(let frame) in receiver.receiveCopies(from: host) {
        order.append(frame)
        received += 1
      }
      if sent < frames.count { sent += try #require(hub.trySend(frames: Array(frames[sent...]))) }
    }
    #expect(order == frames)
  }

  @Test func aBlockingSendWaitsForRoomAndSendsAllInOrder() throws {
    let (hub, host) = try PacketSocket.pair()
    defer {
      hub.close()
      host.close()
    }
    let frames = (0..<2_000).map { number in
      [UInt8(number % 256), UInt8(number / 256)] + [UInt8](repeating: 1, count: 2_000)
    }
    let sent = Mutex<Int?>(nil)
    let done = DispatchSemaphore(value: 0)
    // Far more than the socket holds: the sender waits while this thread reads.
    DispatchQueue.global().async {
      sent.withLock { $0 = hub.send(frames: frames) }
      done.signal()
    }
    let receiver = FrameBatchReceiver(limit: 4_096)
    var order: [[UInt8]] = []
    while order.count < frames.count {
      for case .frame(let frame) in receiver.receiveCopies(from: host) { order.append(frame) }
    }
    done.wait()
    #expect(sent.withLock { $0 } == frames.count)
    #expect(order == frames)
  }

  @Test func aGonePeerIsNil() throws {
    let (hub, host) = try PacketSocket.pair()
    defer { hub.close() }
    host.close()
    #expect(hub.trySend(frames: [[1], [2], [3]]) == nil)
  }

  private func receiveAll(from socket: PacketSocket) -> [[UInt8]] {
    let receiver = FrameBatchReceiver(limit: 1_024)
    var frames: [[UInt8]] = []
    while true {
      for result in receiver.receiveCopies(from: socket) {
        guard case .frame(let frame) = result else { return frames }
        frames.append(frame)
      }
    }
  }
}
