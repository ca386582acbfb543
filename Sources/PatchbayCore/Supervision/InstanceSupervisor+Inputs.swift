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
      // The common hop: no array of one.
      transmit(CollectionOfOne(DeliveryBatch.Input(port: port.name, kind: port.kind, value: value, hops: hops)))
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
  package func transmit(_ inputs: some RandomAccessCollection<DeliveryBatch.Input>, blocking: Bool = false) {
    defer { inbox.finishSending() }
    // Each input's port index in the process's declaration (-1: it declares no such input), on
    // the stack: one input, the common hop, costs no heap allocation here.
    withUnsafeTemporaryAllocation(of: Int.self, capacity: inputs.count) { indices in
      var unknown = 0
      let process: (any PluginChannel)? = state.withLock { state in
        guard let process = state.process else { return nil }
        for (position, input) in inputs.enumerated() {
          let index = state.ports.firstIndex { $0.name == input.port && $0.direction == .input } ?? -1
          indices.initializeElement(at: position, to: index)
          if index < 0 { unknown += 1 }
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
      if unknown == 0 {
        sendInputs(inputs, at: UnsafeBufferPointer(indices), to: process, blocking: blocking)
      } else {
        // Ports come from the consumer's declaration, so an unknown one is a route compiled
        // against older ports: such inputs are left out.
        let known = zip(inputs, indices).filter { $0.1 >= 0 }
        let names = Set(zip(inputs, indices).filter { $0.1 < 0 }.map(\.0.port)).sorted().joined(separator: ", ")
        logger.warning("\(unknown) inputs for ports it does not declare (\(names)) dropped")
        known.map(\.1).withUnsafeBufferPointer {
          sendInputs(known.map(\.0), at: $0, to: process, blocking: blocking)
        }
      }
    }
  }

  /// Sends inputs of known ports (`indices`), remembers what went out as in flight, and puts
  /// back what did not.
  private func sendInputs(
    _ inputs: some RandomAccessCollection<DeliveryBatch.Input>, at indices: UnsafeBufferPointer<Int>,
    to process: any PluginChannel, blocking: Bool
  ) {
    func message(_ position: Int, _ input: DeliveryBatch.Input) -> HubMessage {
      .input(port: UInt32(indices[position]), value: input.value, hops: input.hops)
    }
    let sent: Int?
    if inputs.count == 1, !blocking, let input = inputs.first {
      // One input (the common hop): no array of messages for it.
      switch process.trySend(message(0, input)) {
      case .sent: sent = 1
      case .wouldBlock: sent = 0
      case .closed: sent = nil
      }
    } else if inputs.isEmpty {
      sent = 0
    } else {
      let messages = inputs.enumerated().map { message($0.offset, $0.element) }
      sent = blocking ? process.send(messages) : process.trySend(messages)
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
