import PatchbayValues

/// The inputs routed while a reader thread works through the frames of one read: each
/// consumer's are sent together once the reader is through them (one `sendmmsg` per consumer),
/// not with a system call each. The batch holds each consumer's send claim
/// (`InstanceInbox.claim`) until it is flushed, so nothing overtakes what it holds. One reader
/// thread owns it, for one read.
package final class DeliveryBatch {
  package struct Input {
    var port: String
    var kind: PortKind
    var value: Value
    /// The routes it has passed through (WireProtocol.maximumHops).
    var hops: UInt8
    /// Where the consumer declared `port`, if known (`InputPort`): -1, look it up by name.
    var index = -1
    var generation = 0

    init(port: String, kind: PortKind, value: Value, hops: UInt8, index: Int = -1, generation: Int = 0) {
      self.port = port
      self.kind = kind
      self.value = value
      self.hops = hops
      self.index = index
      self.generation = generation
    }

    init(_ value: Value, to port: InputPort, hops: UInt8) {
      self.init(
        port: port.name, kind: port.kind, value: value, hops: hops, index: port.index, generation: port.generation)
    }
  }

  /// In the order consumers were first reached; a read reaches few, so a list beats a table.
  private var pending: [(consumer: InstanceSupervisor, inputs: [Input])] = []

  package init() {}

  /// The batch holds `consumer`'s send claim: more inputs for it join the batch.
  package func holdsClaim(of consumer: InstanceSupervisor) -> Bool {
    pending.contains { $0.consumer === consumer }
  }

  /// An input whose consumer's claim this batch holds (or has just taken).
  package func add(_ value: Value, port: InputPort, hops: UInt8, for consumer: InstanceSupervisor) {
    let input = Input(value, to: port, hops: hops)
    if let index = pending.firstIndex(where: { $0.consumer === consumer }) {
      pending[index].inputs.append(input)
    } else {
      pending.append((consumer, [input]))
    }
  }

  /// Sends what is held and gives the claims back. Called at the end of a read, and before
  /// anything that may wait for room: a held claim keeps its consumer's delivery thread waiting.
  package func flush() {
    guard !pending.isEmpty else { return }
    let held = pending
    pending.removeAll(keepingCapacity: true)
    for (consumer, inputs) in held { consumer.transmit(inputs) }
  }
}
