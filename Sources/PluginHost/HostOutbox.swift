import CPatchbayPlugin
import Dispatch
import PatchbayWire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Every frame this host sends to the hub, in the order the calls were made. A frame goes
/// straight to the socket when nothing is waiting and the socket takes it without blocking;
/// otherwise it waits here, behind the others, and a writer sends it when the hub reads again
/// (back-pressure: the hub stops reading a producer whose consumer is full).
///
/// Event values of a plugin that declared `PB_PLUGIN_PUBLISH_BUSY` (ABI 1.1) wait here up to
/// `eventBound`; beyond that, `publishEvent` answers `.busy`. Any other plugin's events block
/// in the socket as in ABI 1.0 (or, behind frames already waiting here, wait for room).
/// A state value replaces its port's value still waiting here; other frames (logs, replies)
/// are few and always queued.
final class HostOutbox: Sendable {
  /// `PB_PUBLISH_BUFFER_EVENTS` of the header: the event values buffered before BUSY or waiting.
  static let eventBound = Int(PB_PUBLISH_BUFFER_EVENTS)

  enum PublishOutcome: Equatable {
    case taken
    /// The buffer is full; the value was not taken.
    case busy
    /// The hub is gone.
    case closed
  }

  /// The back-pressure this host put on the plugin's event publishes, for `status`.
  struct Pressure: Equatable {
    /// Publishes answered `.busy`.
    var busy: UInt64 = 0
    /// Publishes that blocked for room (buffer or socket full), and `waitForRoom` calls that waited.
    var waits: UInt64 = 0
  }

  private struct Entry {
    /// nil: a state value replaced by a newer one of its port, skipped by the writer.
    var frame: [UInt8]?
    var isEvent = false
    var statePort: UInt32?
  }

  private struct State {
    /// Entries from `head` on wait, oldest first; `headSequence` numbers `entries[head]`.
    var entries: [Entry] = []
    var head = 0
    var headSequence: UInt64 = 0
    /// The sequence number of the state value waiting for each port.
    var waitingState: [UInt32: UInt64] = [:]
    var events = 0
    var writing = false
    var closed = false
    var roomWaiters = 0
    var drainWaiters = 0
    /// Counted under the lock the publish takes anyway: no cost of its own per event.
    var pressure = Pressure()

    var isEmpty: Bool { head == entries.count }
    var nextSequence: UInt64 { headSequence + UInt64(entries.count - head) }

    mutating func append(_ entry: Entry) {
      if let port = entry.statePort {
        if let earlier = waitingState[port], earlier >= headSequence {
          entries[head + Int(earlier - headSequence)].frame = nil
        }
        waitingState[port] = nextSequence
      }
      if entry.isEvent { events += 1 }
      entries.append(entry)
    }

    mutating func removeFirst() {
      let entry = entries[head]
      if entry.isEvent { events -= 1 }
      if let port = entry.statePort, waitingState[port] == headSequence { waitingState[port] = nil }
      head += 1
      headSequence += 1
      if head == entries.count {
        entries.removeAll(keepingCapacity: entries.count <= 4096)
        head = 0
      } else if head >= 1024, head * 2 >= entries.count {
        entries.removeFirst(head)
        head = 0
      }
    }

    mutating func close() {
      closed = true
      entries = []
      head = 0
      waitingState = [:]
      events = 0
    }
  }

  private let socket: PacketSocket
  private let state = Mutex(State())
  /// Signalled once per waiter counted in `roomWaiters` / `drainWaiters`.
  private let room = DispatchSemaphore(value: 0)
  private let drained = DispatchSemaphore(value: 0)
  private let writer = DispatchQueue(label: "patchbay.host-writer")

  init(socket: PacketSocket) { self.socket = socket }

  /// The totals so far (this process).
  var pressure: Pressure { state.withLock { $0.pressure } }

  /// A frame other than a published value (a reply, a log line). False once the hub is gone.
  @discardableResult
  func send(_ frame: [UInt8]) -> Bool {
    state.withLock { state in
      guard !state.closed else { return false }
      sendOrQueue(&state, Entry(frame: frame))
      return !state.closed
    }
  }

  /// A state value: never waits; a value of the same port still waiting is replaced.
  func publishState(_ frame: [UInt8], port: UInt32) -> Bool {
    state.withLock { state in
      guard !state.closed else { return false }
      sendOrQueue(&state, Entry(frame: frame, statePort: port))
      return !state.closed
    }
  }

  /// An event value. With the buffer full: `.busy` when `busyAllowed`, else waits for room.
  /// A plugin that may not be told `.busy` (ABI 1.0) sends as before while nothing waits here:
  /// a blocking send, so a full socket slows it in the kernel (no hand-off to the writer; the
  /// event flood measured about 20 % slower through the writer). Other frames wait for the lock
  /// meanwhile, as they would have waited for the full socket.
  func publishEvent(_ frame: [UInt8], busyAllowed: Bool) -> PublishOutcome {
    var waited = false
    while true {
      let outcome: PublishOutcome? = state.withLock { state in
        if state.closed { return .closed }
        if !busyAllowed, state.isEmpty {
          // Tried first without blocking only to count a wait: the same one send when there is room.
          switch socket.trySend(frame) {
          case .sent: return .taken
          case .closed:
            state.close()
            return .closed
          case .wouldBlock:
            if !waited { state.pressure.waits += 1 }
          }
          guard socket.send(frame) else {
            state.close()
            return .closed
          }
          return .taken
        }
        guard state.events < Self.eventBound else {
          if busyAllowed {
            state.pressure.busy += 1
            return .busy
          }
          if !waited { state.pressure.waits += 1 }
          state.roomWaiters += 1
          return nil
        }
        sendOrQueue(&state, Entry(frame: frame, isEvent: true))
        return state.closed ? .closed : .taken
      }
      if let outcome { return outcome }
      waited = true
      room.wait()
    }
  }

  /// Waits until an event value would be taken (or the hub is gone); false when `timeout`
  /// nanoseconds passed first (`UInt64.max`: no limit).
  func waitForRoom(timeout: UInt64) -> Bool {
    let deadline: DispatchTime =
      timeout == .max ? .distantFuture : .now() + .nanoseconds(Int(min(timeout, UInt64(Int.max))))
    var waited = false
    while true {
      let ready = state.withLock { state in
        if state.closed || state.events < Self.eventBound { return true }
        if !waited { state.pressure.waits += 1 }
        state.roomWaiters += 1
        return false
      }
      if ready { return true }
      waited = true
      if room.wait(timeout: deadline) == .timedOut {
        // A signal already sent for this waiter stays in the semaphore and wakes another
        // waiter once for nothing; every waiter checks again.
        return state.withLock { state in
          if state.roomWaiters > 0 { state.roomWaiters -= 1 }
          return state.closed || state.events < Self.eventBound
        }
      }
    }
  }

  /// Waits until everything queued was sent (or the hub is gone): before the process exits.
  func drain() {
    while true {
      let done = state.withLock { state in
        if state.closed || state.isEmpty { return true }
        state.drainWaiters += 1
        return false
      }
      if done { return }
      drained.wait()
    }
  }

  /// Under the lock, so frames reach the socket in the order of the calls.
  private func sendOrQueue(_ state: inout State, _ entry: Entry) {
    if state.isEmpty, let frame = entry.frame {
      switch socket.trySend(frame) {
      case .sent: return
      case .closed:
        state.close()
        return
      case .wouldBlock: break
      }
    }
    state.append(entry)
    if !state.writing {
      state.writing = true
      writer.async { self.writeQueued() }
    }
  }

  /// The writer: waits until the socket takes frames again and sends the queue in order,
  /// several frames per system call (`sendmmsg`).
  private func writeQueued() {
    while true {
      var descriptor = pollfd(fd: socket.descriptor, events: Int16(POLLOUT), revents: 0)
      if poll(&descriptor, 1, -1) < 0, errno == EINTR { continue }
      let (roomWaiters, drainWaiters, finished) = state.withLock { state in
        while !state.isEmpty {
          var frames: [[UInt8]] = []
          var index = state.head
          while index < state.entries.count, frames.count < PacketSocket.framesPerCall {
            if let frame = state.entries[index].frame { frames.append(frame) }
            index += 1
          }
          guard let sent = socket.trySend(frames: frames) else {
            state.close()
            break
          }
          // The frames sent leave the queue, with the replaced state values among them.
          var unsent = sent
          while !state.isEmpty, unsent > 0 || state.entries[state.head].frame == nil {
            if state.entries[state.head].frame != nil { unsent -= 1 }
            state.removeFirst()
          }
          if sent < frames.count { break }
        }
        var roomWaiters = 0
        if state.closed || state.events < Self.eventBound {
          roomWaiters = state.roomWaiters
          state.roomWaiters = 0
        }
        var drainWaiters = 0
        let finished = state.closed || state.isEmpty
        if finished {
          state.writing = false
          drainWaiters = state.drainWaiters
          state.drainWaiters = 0
        }
        return (roomWaiters, drainWaiters, finished)
      }
      for _ in 0..<roomWaiters { room.signal() }
      for _ in 0..<drainWaiters { drained.signal() }
      if finished { return }
    }
  }
}
