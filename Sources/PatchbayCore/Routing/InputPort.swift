import PatchbayValues

/// An input port as delivery needs it: its name (what the inbox and the ledger keep), its kind,
/// and where the consumer declared it: its index among the consumer's ports of declaration
/// `generation` (`InstanceSupervisor.portsGeneration`). A hop sends by that index when the
/// consumer's ports are still those; otherwise (a restarted process declared others, or the
/// index is not known: -1) the port is looked up by name when it is sent.
package struct InputPort: Sendable, Equatable {
  package var name: String
  package var kind: PortKind
  package var index: Int
  package var generation: Int

  package init(name: String, kind: PortKind, index: Int = -1, generation: Int = 0) {
    self.name = name
    self.kind = kind
    self.index = index
    self.generation = generation
  }

  /// A port found by name: sent by its name's index in the ports of the time it is sent.
  package init(_ port: PortDescriptor) { self.init(name: port.name, kind: port.kind) }
}
