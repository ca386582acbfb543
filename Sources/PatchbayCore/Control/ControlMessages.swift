/// One request on the control socket: a JSON object on one line.
public struct ControlRequest: Codable, Sendable {
  public enum Command: String, Codable, Sendable {
    case status, send, watch, reload, restart
    /// Protocol 2 (ControlProtocolVersion): the route graph, recent log lines, retained values.
    case routes, log, values
  }
  public var command: Command
  public var address: String?
  public var value: String?
  public var pattern: String?
  public var instance: String?
  /// `log`: how many of the newest lines (default 200, at most the 500 kept).
  public var lines: Int?
  /// `log`: the least severe level wanted (swift-log's names: debug, info, notice, warning, ...).
  public var level: String?

  public init(
    command: Command, address: String? = nil, value: String? = nil, pattern: String? = nil, instance: String? = nil,
    lines: Int? = nil, level: String? = nil
  ) {
    self.command = command
    self.address = address
    self.value = value
    self.pattern = pattern
    self.instance = instance
    self.lines = lines
    self.level = level
  }
}

/// The answer: one JSON line. `watch` follows it with plain `INSTANCE.PORT VALUE` lines.
public struct ControlResponse: Codable, Sendable {
  public var ok: Bool
  public var message: String?
  public var status: HubStatus?
  public var reload: ReloadSummary?
  /// Set by hubs speaking protocol 2 or later (ControlProtocolVersion); nil from older hubs.
  public var protocolVersion: Int?
  public var routes: [RouteEdge]?
  public var log: [LogRecord]?
  public var values: [PortValueEntry]?
  /// With `values`: what the hub last gave each state input (absent from older hubs).
  public var inputs: [PortValueEntry]?

  public init(
    ok: Bool, message: String? = nil, status: HubStatus? = nil, reload: ReloadSummary? = nil,
    routes: [RouteEdge]? = nil, log: [LogRecord]? = nil, values: [PortValueEntry]? = nil,
    inputs: [PortValueEntry]? = nil
  ) {
    self.ok = ok
    self.message = message
    self.status = status
    self.reload = reload
    self.protocolVersion = ControlProtocolVersion.current
    self.routes = routes
    self.log = log
    self.values = values
    self.inputs = inputs
  }
}
