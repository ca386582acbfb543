/// One request on the control socket: a JSON object on one line.
public struct ControlRequest: Codable, Sendable {
  public enum Command: String, Codable, Sendable {
    case status, send, watch, reload, restart
  }
  public var command: Command
  public var address: String?
  public var value: String?
  public var pattern: String?
  public var instance: String?

  public init(
    command: Command, address: String? = nil, value: String? = nil, pattern: String? = nil, instance: String? = nil
  ) {
    self.command = command
    self.address = address
    self.value = value
    self.pattern = pattern
    self.instance = instance
  }
}

/// The answer: one JSON line. `watch` follows it with plain `INSTANCE.PORT VALUE` lines.
public struct ControlResponse: Codable, Sendable {
  public var ok: Bool
  public var message: String?
  public var status: HubStatus?
  public var reload: ReloadSummary?

  public init(ok: Bool, message: String? = nil, status: HubStatus? = nil, reload: ReloadSummary? = nil) {
    self.ok = ok
    self.message = message
    self.status = status
    self.reload = reload
  }
}
