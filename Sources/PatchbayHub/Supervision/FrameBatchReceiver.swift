import CProcessControl
import PatchbayCore
import PatchbayWire

#if canImport(Glibc)
  import Glibc
#endif

/// Reads a plugin's frames several per system call (`recvmmsg`): a reader thread under a
/// flood wakes once for everything queued instead of once per frame. One reader thread owns
/// it. Its slots are allocated once; the kernel touches only the pages a frame fills, so the
/// idle cost is address space, not memory.
struct FrameBatchReceiver: ~Copyable {
  static let slots = 16
  let limit: Int
  private let buffers: UnsafeMutableRawBufferPointer
  private let lengths: UnsafeMutableBufferPointer<Int>

  init(limit: Int = WireProtocol.maximumFrameBytes) {
    self.limit = limit
    buffers = .allocate(byteCount: Self.slots * (limit + 1), alignment: 16)
    lengths = .allocate(capacity: Self.slots)
  }

  deinit {
    buffers.deallocate()
    lengths.deallocate()
  }

  /// Blocks for the next frames, in order; the last result may be `.closed` or `.oversized`
  /// (what follows a closed stream is not read).
  func receive(from socket: PacketSocket) -> [PacketSocket.ReceiveResult] {
    let slot = limit + 1
    while true {
      let count = pc_receive_frames(
        socket.descriptor, buffers.baseAddress!.assumingMemoryBound(to: UInt8.self), slot, UInt32(Self.slots),
        lengths.baseAddress!)
      if count < 0 {
        if errno == EINTR { continue }
        return [.closed]
      }
      var results: [PacketSocket.ReceiveResult] = []
      results.reserveCapacity(Int(count))
      for index in 0..<Int(count) {
        let length = lengths[index]
        if length == 0 {
          results.append(.closed)
          break
        }
        if length > limit {
          results.append(.oversized(length))
          break
        }
        let start = index * slot
        results.append(.frame(Array(UnsafeRawBufferPointer(start: buffers.baseAddress! + start, count: length))))
      }
      return results
    }
  }
}
