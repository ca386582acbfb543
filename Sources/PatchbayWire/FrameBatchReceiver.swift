import CProcessControl

#if canImport(Glibc)
  import Glibc
#endif

/// Reads frames several per system call (`recvmmsg`): a reader thread under a flood (the
/// hub's reader of a plugin, a plugin host's reader of the hub) wakes once for everything
/// queued instead of once per frame. One reader thread owns
/// it. Its slots are allocated once; the kernel touches only the pages a frame fills, so the
/// idle cost is address space, not memory.
public struct FrameBatchReceiver: ~Copyable {
  public static let slots = 16
  public let limit: Int
  private let buffers: UnsafeMutableRawBufferPointer
  private let lengths: UnsafeMutableBufferPointer<Int>
  /// The slots' message headers, made once (building them for each read was about 7 % of a
  /// hop's instructions, issue 44).
  private let plan: OpaquePointer

  public init(limit: Int = WireProtocol.maximumFrameBytes) {
    self.limit = limit
    buffers = .allocate(byteCount: Self.slots * (limit + 1), alignment: 16)
    lengths = .allocate(capacity: Self.slots)
    guard
      let plan = pc_receive_plan_create(
        buffers.baseAddress!.assumingMemoryBound(to: UInt8.self), limit + 1, UInt32(Self.slots))
    else { fatalError("out of memory for a frame receiver's headers") }
    self.plan = plan
  }

  deinit {
    pc_receive_plan_destroy(plan)
    buffers.deallocate()
    lengths.deallocate()
  }

  /// One result of a read: a frame, where it lies in the receiver's slot (valid until the
  /// next `receive`), or how the stream ended.
  public enum Received {
    case frame(UnsafeRawBufferPointer)
    /// The frame was larger than the limit; it has been consumed and discarded.
    case oversized(Int)
    case closed
  }

  /// Blocks for the next frames and leaves them in the slots: how many results there are
  /// (`subscript`), in order; the last may be `.closed` or `.oversized` (what follows a
  /// closed stream is not read). Nothing is copied or allocated: a hop's frame is decoded
  /// where the kernel put it.
  public func receive(from socket: PacketSocket) -> Int {
    while true {
      let count = pc_receive_planned(socket.descriptor, plan, lengths.baseAddress!)
      if count < 0 {
        if errno == EINTR { continue }
        lengths[0] = 0
        return 1
      }
      for index in 0..<Int(count) where lengths[index] == 0 || lengths[index] > limit { return index + 1 }
      return Int(count)
    }
  }

  /// The `index`th result of the last `receive`.
  public subscript(index: Int) -> Received {
    let length = lengths[index]
    if length == 0 { return .closed }
    if length > limit { return .oversized(length) }
    return .frame(UnsafeRawBufferPointer(start: buffers.baseAddress! + index * (limit + 1), count: length))
  }

  /// The next frames as arrays (tests, and readers off the hot path).
  public func receiveCopies(from socket: PacketSocket) -> [PacketSocket.ReceiveResult] {
    (0..<receive(from: socket)).map { index -> PacketSocket.ReceiveResult in
      switch self[index] {
      case .frame(let bytes): .frame(Array(bytes))
      case .oversized(let size): .oversized(size)
      case .closed: .closed
      }
    }
  }
}
