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
    deliver(value, to: InputPort(port), from: producer, batch: batch, hops: hops)
  }

  /// `deliver` to a port as routes intern it (`InputPort`: sent by its index, no lookup).
  package func deliver(
    _ value: Value, to port: InputPort, from producer: InstanceSupervisor?, batch: DeliveryBatch?, hops: UInt8
  ) -> Bool {
    if let batch {
      let claimed =
        batch.holdsClaim(of: self)
        ? inbox.extendClaim(port: port.name, kind: port.kind, value: value)
        : inbox.claim(port: port.name, kind: port.kind, value: value)
      if claimed {
        batch.add(value, port: port, hops: hops, for: self)
        return true
      }
      // What follows may wait for room: the claims the batch holds must not wait with it.
      batch.flush()
    }
    if inbox.claim(port: port.name, kind: port.kind, value: value) {
      transmit(DeliveryBatch.Input(value, to: port, hops: hops))
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
    // Each input's port index in the process's declaration (-1: it declares no such input).
    withUnsafeTemporaryAllocation(of: Int.self, capacity: inputs.count) { indices in
      var unknown = 0
      let process: (any PluginChannel)? = state.withLock { state in
        guard let process = state.process else { return nil }
        for position in inputs.indices {
          let index = inputIndex(of: inputs[position], among: state.ports)
          indices.initializeElement(at: position, to: index)
          if index < 0 { unknown += 1 }
        }
        return process
      }
      guard let process else {
        inbox.hold()
        for input in inputs.reversed() { putBack(input) }
        return
      }
      if unknown == 0 {
        sendInputs(inputs, at: UnsafeBufferPointer(indices), to: process, blocking: blocking)
      } else {
        // Ports come from the consumer's declaration, so an unknown one is a route compiled
        // against older ports: such inputs are left out.
        let known = zip(inputs, indices).filter { $0.1 >= 0 }
        dropUnknown(zip(inputs, indices).filter { $0.1 < 0 }.map(\.0))
        known.map(\.1).withUnsafeBufferPointer {
          sendInputs(known.map(\.0), at: $0, to: process, blocking: blocking)
        }
      }
    }
  }

  /// The common hop: one input, claimed by the thread that routed it, sent by that thread
  /// without blocking and without arrays. The consumer's lock is taken once: the port's index,
  /// the process, and the input recorded as in flight together (an exit handled after that
  /// finds it in the ledger; a send that then fails takes it back, unless the exit already has).
  func transmit(_ input: DeliveryBatch.Input) {
    defer { inbox.finishSending() }
    let (process, index, sequence) = state.withLock {
      state -> (process: (any PluginChannel)?, index: Int, sequence: UInt64?) in
      guard let process = state.process else { return (nil, -1, nil) }
      let index = inputIndex(of: input, among: state.ports)
      guard index >= 0 else { return (process, index, nil) }
      InstanceCounters.bump(&state.counters.messagesIn)
      // Remembered until the host has finished it (its ledger), for the next process.
      let sequence = process.inputLedger.map { state.inFlight.sent(input, hostFinished: $0.finished) }
      return (process, index, sequence)
    }
    guard let process else {
      inbox.hold()
      putBack(input)
      return
    }
    guard index >= 0 else { return dropUnknown(CollectionOfOne(input)) }
    let result = process.trySendInput(port: UInt32(index), value: input.value, hops: input.hops)
    guard result != .sent else { return }
    let returned = state.withLock { state in
      state.counters.messagesIn -= 1
      guard let sequence else { return true }
      return state.inFlight.withdraw(sequence)
    }
    // The socket is full (the delivery thread sends it) or the process is gone (the next one
    // gets it, if its exit has not already given it back).
    if result == .closed { inbox.hold() }
    if returned { putBack(input) }
  }

  /// `input`'s index among the ports the process declared (its interned index while those are
  /// the ports it was interned for), or -1: it declares no such input.
  private func inputIndex(of input: DeliveryBatch.Input, among ports: [PortDescriptor]) -> Int {
    if input.index >= 0, input.generation == portsGeneration.load(ordering: .relaxed) { return input.index }
    return ports.firstIndex { $0.name == input.port && $0.direction == .input } ?? -1
  }

  private func putBack(_ input: DeliveryBatch.Input) {
    inbox.putBack(port: input.port, kind: input.kind, value: input.value, hops: input.hops)
  }

  private func dropUnknown(_ inputs: some Collection<DeliveryBatch.Input>) {
    let names = Set(inputs.map(\.port)).sorted().joined(separator: ", ")
    logger.warning("\(inputs.count) inputs for ports it does not declare (\(names)) dropped")
  }

  /// Sends inputs of known ports (`indices`), remembers what went out as in flight, and puts
  /// back what did not.
  private func sendInputs(
    _ inputs: [DeliveryBatch.Input], at indices: UnsafeBufferPointer<Int>, to process: any PluginChannel,
    blocking: Bool
  ) {
    guard !inputs.isEmpty else { return }
    var messages: [HubMessage] = []
    messages.reserveCapacity(inputs.count)
    for position in inputs.indices {
      let input = inputs[position]
      messages.append(.input(port: UInt32(indices[position]), value: input.value, hops: input.hops))
    }
    let sent = blocking ? process.send(messages) : process.trySend(messages)
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
    for input in inputs.dropFirst(count).reversed() { putBack(input) }
  }
}
