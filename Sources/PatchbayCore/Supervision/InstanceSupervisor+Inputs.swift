import Foundation
import PatchbayValues
import PatchbayWire

/// Inputs: delivery into the process, back-pressure on producers, and the inputs in flight.
extension InstanceSupervisor {
  /// Routes a value to input `port`; false if it was dropped (queue full). When nothing is
  /// queued or on its way, the calling thread (the publisher's reader) sends it itself: one
  /// thread hand-off less per hop (docs/BENCHMARKS.md). It never blocks on a full socket;
  /// then the queue and its delivery thread take over.
  /// With a `batch` (a reader's), the value joins it instead and is sent with the others.
  package func deliver(
    _ value: Value, to port: PortDescriptor, from producer: InstanceSupervisor? = nil, batch: DeliveryBatch? = nil,
    hops: UInt8 = 1
  ) -> Bool {
    if let batch {
      let claimed =
        batch.holdsClaim(of: self)
        ? inbox.extendClaim(port: port.name, kind: port.kind, value: value)
        : inbox.claim(port: port.name, kind: port.kind, value: value)
      if claimed {
        batch.add(value, port: port.name, kind: port.kind, hops: hops, for: self)
        return true
      }
      // What follows may wait for room: the claims the batch holds must not wait with it.
      batch.flush()
    }
    if inbox.claim(port: port.name, kind: port.kind, value: value) {
      transmit([DeliveryBatch.Input(port: port.name, kind: port.kind, value: value, hops: hops)])
      return true
    }
    // An event from a plugin: back-pressure. The producer's reader thread (this one) waits for
    // room, so the hub stops reading that producer, its socket fills, and its `publish` slows
    // down; nothing is dropped while this consumer runs. It waits at most a hang timeout (the
    // consumer is then hung and the supervisor deals with it).
    if port.kind == .event, let producer {
      let deadline = Date().addingTimeInterval(spec.supervision.hangTimeout)
      producer.backPressure(begins: true)
      let admission = inbox.enqueueEvent(port: port.name, value: value, hops: hops, waitingUntil: deadline)
      producer.backPressure(begins: false)
      switch admission {
      case .queued: return true
      case .queuedAfterWaiting:
        producer.countBackPressure()
        return true
      case .dropped:
        state.withLock { InstanceCounters.bump(&$0.counters.drops) }
        return false
      }
    }
    let accepted = inbox.enqueue(port: port.name, kind: port.kind, value: value, hops: hops)
    if !accepted { state.withLock { InstanceCounters.bump(&$0.counters.drops) } }
    return accepted
  }

  /// The hub is not reading this instance's socket because a consumer of its events is full:
  /// its heartbeat answers wait unread behind its publishes, which is no hang.
  package func backPressure(begins: Bool) {
    let now = clock.now
    state.withLock { state in
      state.backPressuredSince = begins ? now : nil
      if !begins { state.heartbeat.backPressureEnded(now: now) }
    }
    if !begins { heartbeatDeadlineChanged() }
  }

  package func countBackPressure() { state.withLock { InstanceCounters.bump(&$0.counters.backPressureWaits) } }

  func deliverLoop() {
    while let inputs = inbox.next(limit: PacketSocket.framesPerCall) {
      transmit(inputs, blocking: true)
    }
  }

  /// Sends inputs taken for this instance (claimed by the thread that routed them, alone or
  /// in a reader's batch, or taken from the inbox by the delivery thread, which alone may
  /// block) in as few system calls as the channel can. The one way inputs reach a process:
  /// what is sent is remembered until the host has finished it; what does not fit, or finds
  /// the process gone, goes back to the front of the line in order (for the delivery thread,
  /// or for the next process); an input for a port the process does not declare is dropped.
  package func transmit(_ inputs: [DeliveryBatch.Input], blocking: Bool = false) {
    defer { inbox.finishSending() }
    var messages: [HubMessage] = []
    messages.reserveCapacity(inputs.count)
    var unknown: [Int] = []
    let process: (any PluginChannel)? = state.withLock { state in
      guard let process = state.process else { return nil }
      for (position, input) in inputs.enumerated() {
        if let index = state.ports.firstIndex(where: { $0.name == input.port && $0.direction == .input }) {
          messages.append(.input(port: UInt32(index), value: input.value, hops: input.hops))
        } else {
          unknown.append(position)
        }
      }
      return process
    }
    guard let process else {
      inbox.hold()
      for input in inputs.reversed() {
        inbox.putBack(port: input.port, kind: input.kind, value: input.value, hops: input.hops)
      }
      return
    }
    // Ports come from the consumer's declaration, so an unknown one is a route compiled
    // against older ports: such inputs are left out.
    var inputs = inputs
    if !unknown.isEmpty {
      let names = Set(unknown.map { inputs[$0].port }).sorted().joined(separator: ", ")
      logger.warning("\(unknown.count) inputs for ports it does not declare (\(names)) dropped")
      inputs = inputs.enumerated().filter { !unknown.contains($0.offset) }.map(\.element)
    }
    let sent: Int?
    switch messages.count {
    case 0: sent = 0
    case 1 where !blocking:
      // One input (the common hop): no array of frames for it.
      switch process.trySend(messages[0]) {
      case .sent: sent = 1
      case .wouldBlock: sent = 0
      case .closed: sent = nil
      }
    default: sent = blocking ? process.send(messages) : process.trySend(messages)
    }
    let count = sent ?? 0
    if count > 0 {
      let ledger = process.inputLedger
      state.withLock { state in
        InstanceCounters.bump(&state.counters.messagesIn, by: count)
        // Remembered until the host has finished them (its ledger), for the next process.
        guard state.process === process, let ledger else { return }
        state.inFlight.sent(inputs.prefix(count), hostFinished: ledger.finished)
      }
    }
    // The socket is full (the delivery thread sends the rest) or the process is gone (the next
    // one gets them).
    if sent == nil { inbox.hold() }
    for input in inputs.dropFirst(count).reversed() {
      inbox.putBack(port: input.port, kind: input.kind, value: input.value, hops: input.hops)
    }
  }
}
