/// The last value the hub holds for a port, as the control socket's `values` command answers:
/// the retained value of every state output (also across hub restarts), in the text
/// `patchbay send` and `watch` use.
public struct PortValueEntry: Sendable, Codable, Equatable {
  /// `INSTANCE.PORT`.
  public var address: String
  public var value: String

  public init(address: String, value: String) {
    self.address = address
    self.value = value
  }
}
