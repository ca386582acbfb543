/// What the schedule remembers across restarts, per trigger: the instant up to which its
/// occurrences are settled (fired, or missed and logged), and the rule they were settled for.
public struct ScheduleState: Sendable, Equatable, Codable {
  public struct Trigger: Sendable, Equatable, Codable {
    /// Seconds since 1970 (UTC): every occurrence up to here has been fired or given up.
    public var handledThrough: Int64
    /// The rule's description; when the config changes the rule, its history starts afresh.
    public var rule: String
    /// The occurrence that last fired (seconds since 1970, UTC), for people reading the file.
    public var lastFired: Int64?

    public init(handledThrough: Int64, rule: String, lastFired: Int64? = nil) {
      self.handledThrough = handledThrough
      self.rule = rule
      self.lastFired = lastFired
    }

    enum CodingKeys: String, CodingKey {
      case handledThrough = "handled_through"
      case rule
      case lastFired = "last_fired"
    }
  }

  public var triggers: [String: Trigger]

  public init(triggers: [String: Trigger] = [:]) { self.triggers = triggers }
}
