import DequeModule
import Foundation
import PatchbayValues

/// Inputs waiting for one instance. Events queue in order up to a bound (overflow is counted
/// against the route that sent it); a state input holds only its newest value, keeping its
/// place in the line, so a slow consumer never works through a backlog. The inbox outlives
/// the instance's processes: while it is down, inputs wait here.
final class InstanceInbox: @unchecked Sendable {
  enum Item {
    case event(port: String, value: Value)
    case state(port: String)
  }

  private let condition = NSCondition()
  private var queue: Deque<Item> = []
  private var pendingState: [String: Value] = [:]
  /// The newest value handed over on every state input, replayed first after a restart.
  private var deliveredState: [String: Value] = [:]
  private var queuedEvents = 0
  /// An input is on its way to the process (taken by `next` or `claim`): the next one waits,
  /// so inputs reach the process in the order they came.
  private var sending = false
  private var open = false
  private var closed = false
  /// Producers waiting for room (back-pressure); woken when an event leaves the queue.
  private var waitingProducers = 0
  let bound: Int

  enum Admission: Equatable {
    /// Queued without waiting.
    case queued
    /// Queued after the producer waited for room (back-pressure).
    case queuedAfterWaiting
    /// Not queued: full, and the consumer is down, stopping or did not make room in time.
    case dropped
  }

  init(bound: Int) { self.bound = bound }

  /// Queues a value; false when an event was dropped because the queue is full.
  func enqueue(port: String, kind: PortKind, value: Value) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    switch kind {
    case .state:
      if pendingState.updateValue(value, forKey: port) == nil { queue.append(.state(port: port)) }
    case .event:
      guard queuedEvents < bound else { return false }
      queuedEvents += 1
      queue.append(.event(port: port, value: value))
    }
    condition.signal()
    return true
  }

  /// Queues an event, waiting for room while the consumer runs: between healthy instances
  /// nothing is dropped, the producer is slowed down instead. A consumer that is down (held)
  /// or makes no room before `deadline` keeps the bounded, counted queue.
  func enqueueEvent(port: String, value: Value, waitingUntil deadline: Date) -> Admission {
    condition.lock()
    defer { condition.unlock() }
    var waited = false
    while queuedEvents >= bound && open && !closed {
      waited = true
      waitingProducers += 1
      let woken = condition.wait(until: deadline)
      waitingProducers -= 1
      if !woken { break }
    }
    guard queuedEvents < bound else { return .dropped }
    queuedEvents += 1
    queue.append(.event(port: port, value: value))
    condition.broadcast()
    return waited ? .queuedAfterWaiting : .queued
  }

  /// Takes `value` for sending at once when nothing is queued or on its way (the caller then
  /// sends it and calls `finishSending`); false: `enqueue` it instead.
  func claim(port: String, kind: PortKind, value: Value) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    guard open, !closed, !sending, queue.isEmpty else { return false }
    sending = true
    if kind == .state { deliveredState[port] = value }
    return true
  }

  /// The input taken by `next` or `claim` was sent (or put back).
  func finishSending() {
    condition.lock()
    sending = false
    // Wake the delivery thread only for work: a wake-up per directly sent input is a
    // futex call and a context switch for nothing.
    if !queue.isEmpty { condition.signal() }
    condition.unlock()
  }

  /// A new process is ready: before anything newer it gets the latest value of every state
  /// input it had been given.
  func open(replayingState: Bool) {
    condition.lock()
    defer { condition.unlock() }
    if replayingState {
      for (port, value) in deliveredState.sorted(by: { $0.key < $1.key }) where pendingState[port] == nil {
        pendingState[port] = value
        queue.prepend(.state(port: port))
      }
    }
    open = true
    condition.broadcast()
  }

  /// The process is gone or stopping: hold inputs until `open` again.
  func hold() {
    condition.lock()
    open = false
    // Waiting producers stop waiting: a consumer that is down gets the bounded queue.
    if waitingProducers > 0 { condition.broadcast() }
    condition.unlock()
  }

  /// Ends the inbox for good; `next` returns nil.
  func close() {
    condition.lock()
    closed = true
    condition.broadcast()
    condition.unlock()
  }

  /// Blocks until an input can be delivered; nil once closed. Call `finishSending` after it.
  func next() -> (port: String, value: Value)? {
    condition.lock()
    defer { condition.unlock() }
    while !closed && (!open || queue.isEmpty || sending) { condition.wait() }
    guard !closed, let item = queue.popFirst() else { return nil }
    sending = true
    switch item {
    case .event(let port, let value):
      queuedEvents -= 1
      if waitingProducers > 0 { condition.broadcast() }
      return (port, value)
    case .state(let port):
      let value = pendingState.removeValue(forKey: port)!
      deliveredState[port] = value
      return (port, value)
    }
  }

  /// Puts an input back at the front (its process died before it could be sent).
  func putBack(port: String, kind: PortKind, value: Value) {
    condition.lock()
    defer { condition.unlock() }
    switch kind {
    case .state:
      if pendingState[port] == nil {
        pendingState[port] = value
        queue.prepend(.state(port: port))
      }
    case .event:
      queuedEvents += 1
      queue.prepend(.event(port: port, value: value))
    }
  }

  var depth: Int {
    condition.lock()
    defer { condition.unlock() }
    return queue.count
  }
}
