import DequeModule
import Foundation
import PatchbayValues

/// Inputs waiting for one instance. Events queue in order up to a bound (overflow is counted
/// against the route that sent it); a state input holds only its newest value, keeping its
/// place in the line, so a slow consumer never works through a backlog. The inbox outlives
/// the instance's processes: while it is down, inputs wait here.
package final class InstanceInbox: Sendable {
  package enum Item: Sendable {
    case event(port: String, value: Value, hops: UInt8)
    case state(port: String)
  }

  private struct Line {
    var queue: Deque<Item> = []
    var pendingState: [String: (value: Value, hops: UInt8)] = [:]
    /// The newest value handed over on every state input, replayed first after a restart.
    var deliveredState: [String: Value] = [:]
    var queuedEvents = 0
    /// An input is on its way to the process (taken by `next` or `claim`): the next one waits,
    /// so inputs reach the process in the order they came.
    var sending = false
    var open = false
    /// A process is starting and will open the inbox: producers wait for it as for a running
    /// one (a flood right after the hub starts must not find its consumer "down").
    var opening = false
    var closed = false
    /// Producers waiting for room (back-pressure); woken when an event leaves the queue.
    var waitingProducers = 0
  }

  private let line = Guarded(Line())
  package let bound: Int

  package enum Admission: Equatable {
    /// Queued without waiting.
    case queued
    /// Queued after the producer waited for room (back-pressure).
    case queuedAfterWaiting
    /// Not queued: full, and the consumer is down, stopping or did not make room in time.
    case dropped
  }

  package init(bound: Int) { self.bound = bound }

  /// Queues a value; false when an event was dropped because the queue is full.
  package func enqueue(port: String, kind: PortKind, value: Value, hops: UInt8) -> Bool {
    let queued = line.withLock { line -> Bool in
      switch kind {
      case .state:
        if line.pendingState.updateValue((value, hops), forKey: port) == nil { line.queue.append(.state(port: port)) }
      case .event:
        guard line.queuedEvents < bound else { return false }
        line.queuedEvents += 1
        line.queue.append(.event(port: port, value: value, hops: hops))
      }
      return true
    }
    if queued { self.line.signal() }
    return queued
  }

  /// Queues an event, waiting for room while the consumer runs: between healthy instances
  /// nothing is dropped, the producer is slowed down instead. A consumer that is down (held)
  /// or makes no room before `deadline` keeps the bounded, counted queue.
  package func enqueueEvent(port: String, value: Value, hops: UInt8, waitingUntil deadline: Date) -> Admission {
    var waited = false
    let admission = line.wait(until: deadline) { line, timedOut -> Guarded<Line>.Step<Admission> in
      if waited { line.waitingProducers -= 1 }
      if line.queuedEvents >= bound && (line.open || line.opening) && !line.closed && !timedOut {
        waited = true
        line.waitingProducers += 1
        return .wait
      }
      guard line.queuedEvents < bound else { return .done(.dropped) }
      line.queuedEvents += 1
      line.queue.append(.event(port: port, value: value, hops: hops))
      return .done(waited ? .queuedAfterWaiting : .queued)
    }
    if admission != .dropped { line.broadcast() }
    return admission
  }

  /// Takes `value` for sending at once when nothing is queued or on its way (the caller then
  /// sends it and calls `finishSending`); false: `enqueue` it instead.
  package func claim(port: String, kind: PortKind, value: Value) -> Bool {
    line.withLock { line in
      guard line.open, !line.closed, !line.sending, line.queue.isEmpty else { return false }
      line.sending = true
      if kind == .state { line.deliveredState[port] = value }
      return true
    }
  }

  /// Takes one more value under a claim the caller already holds (a `DeliveryBatch` sending
  /// several together), if nothing has been queued behind it meanwhile.
  package func extendClaim(port: String, kind: PortKind, value: Value) -> Bool {
    line.withLock { line in
      guard line.open, !line.closed, line.sending, line.queue.isEmpty else { return false }
      if kind == .state { line.deliveredState[port] = value }
      return true
    }
  }

  /// The input taken by `next` or `claim` was sent (or put back).
  package func finishSending() {
    let work = line.withLock { line in
      line.sending = false
      return !line.queue.isEmpty
    }
    // Wake the delivery thread only for work: a wake-up per directly sent input is a
    // futex call and a context switch for nothing.
    if work { line.signal() }
  }

  /// A new process is ready: before anything newer it gets the latest value of every state
  /// input it had been given.
  package func open(replayingState: Bool) {
    line.change { line in
      if replayingState {
        for (port, value) in line.deliveredState.sorted(by: { $0.key < $1.key }) where line.pendingState[port] == nil {
          line.pendingState[port] = (value, 0)
          line.queue.prepend(.state(port: port))
        }
      }
      line.open = true
      line.opening = false
    }
  }

  /// The device reported its own state for state input `port` (an output that mirrors it,
  /// ABI 1.2): a restarted process then gets that, not the older command it would undo. Only an
  /// input the hub has given a value follows; a light merges into the retained command.
  package func follow(port: String, value: Value) {
    line.withLock { line in
      guard let retained = line.deliveredState[port] else { return }
      if case .light(let old) = retained, case .light(let new) = value {
        line.deliveredState[port] = .light(old.merged(with: new))
      } else if retained.type == value.type {
        line.deliveredState[port] = value
      }
    }
  }

  /// The newest value of every state input: waiting to go (newer) or handed over.
  package func heldState() -> [String: Value] {
    line.withLock { line in
      line.deliveredState.merging(line.pendingState.mapValues(\.value)) { _, pending in pending }
    }
  }

  /// A new process is on its way: until it opens the inbox (or fails), producers wait for room.
  package func expectOpening() { line.withLock { $0.opening = true } }

  /// The process is gone or stopping: hold inputs until `open` again.
  package func hold() {
    let producersWait = line.withLock { line in
      line.open = false
      line.opening = false
      return line.waitingProducers > 0
    }
    // Waiting producers stop waiting: a consumer that is down gets the bounded queue.
    if producersWait { line.broadcast() }
  }

  /// Ends the inbox for good; `next` returns nil.
  package func close() { line.change { $0.closed = true } }

  /// Blocks until inputs can be delivered, then takes up to `limit` of them in order (the
  /// delivery thread sends them with one system call); nil once closed. Call `finishSending`
  /// after sending them.
  package func next(limit: Int) -> [DeliveryBatch.Input]? {
    var wakeProducers = false
    let taken = line.wait { line, _ -> Guarded<Line>.Step<[DeliveryBatch.Input]?> in
      if !line.closed && (!line.open || line.queue.isEmpty || line.sending) { return .wait }
      guard !line.closed else { return .done(nil) }
      var inputs: [DeliveryBatch.Input] = []
      while inputs.count < limit, let item = line.queue.popFirst() {
        switch item {
        case .event(let port, let value, let hops):
          line.queuedEvents -= 1
          wakeProducers = line.waitingProducers > 0
          inputs.append(DeliveryBatch.Input(port: port, kind: .event, value: value, hops: hops))
        case .state(let port):
          let (value, hops) = line.pendingState.removeValue(forKey: port)!
          line.deliveredState[port] = value
          inputs.append(DeliveryBatch.Input(port: port, kind: .state, value: value, hops: hops))
        }
      }
      line.sending = true
      return .done(inputs)
    }
    if wakeProducers { line.broadcast() }
    return taken
  }

  /// Puts an input back at the front (its process died before it could be sent).
  package func putBack(port: String, kind: PortKind, value: Value, hops: UInt8) {
    line.withLock { line in
      switch kind {
      case .state:
        if line.pendingState[port] == nil {
          line.pendingState[port] = (value, hops)
          line.queue.prepend(.state(port: port))
        }
      case .event:
        line.queuedEvents += 1
        line.queue.prepend(.event(port: port, value: value, hops: hops))
      }
    }
  }

  package var depth: Int { line.withLock { $0.queue.count } }
}
