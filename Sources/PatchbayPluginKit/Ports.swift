import CPatchbayPlugin

/// An input port declared by this instance; `receive` names the port it delivers to.
public struct InputPort: Sendable, Hashable {
  public let index: UInt32
  public let name: String
  public let type: ValueType
}

/// An output port declared by this instance; pass it to `PluginContext.publish`.
public struct OutputPort: Sendable, Hashable {
  public let index: UInt32
  public let name: String
  public let type: ValueType
}
