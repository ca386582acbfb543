/// What `patchbay status` shows of an output, as its plugin declared it (ABI 1.2 port flags):
/// the core shows what a plugin asks for and knows no plugin's port names.
public enum PortStatusRole: UInt8, Sendable, Codable {
  /// `PB_PORT_PEER_STATUS`: the PEER column (a bool as connected/disconnected, a text as is).
  case peer = 1
  /// `PB_PORT_SHOWN_IN_STATUS`: a line under the instance, "INSTANCE: PORT VALUE".
  case shown = 2

  /// Whether a port of this kind, type and direction can play the role.
  public func fits(_ port: PortDescriptor) -> Bool {
    guard port.direction == .output, port.kind == .state else { return false }
    switch self {
    case .peer: return port.type == .bool || port.type == .text
    case .shown: return port.type == .text
    }
  }
}
