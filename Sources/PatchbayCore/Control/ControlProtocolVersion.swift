/// The version of the control socket's JSON protocol, sent as `protocolVersion` in every
/// response. Changes are additive: a client that does not know a key ignores it, and a hub
/// that does not know a command answers "bad request".
///
/// - 1: status, send, watch, reload, restart (no `protocolVersion` key).
/// - 2: `routes`, `log` and `values`; `protocolVersion` in every response.
public enum ControlProtocolVersion {
  public static let current = 2
}
