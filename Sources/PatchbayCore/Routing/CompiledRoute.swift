import PatchbayValues

/// A route checked against the ports the instances declared: every constant parsed as the
/// type it will carry, so nothing is converted or guessed while values flow.
public struct CompiledRoute: Sendable {
  public var spec: RouteSpec
  public var sourceType: ValueType
  public var targetType: ValueType
  public var filter: [Value]?
  /// Keyed by the source value's text (`click`, `true`, `42`).
  public var map: [String: Value]?
  public var constant: Value?
  public var cycle: [Value]?
  public var momentaryReset: Value?
  public var momentaryDelayMs: Int
  public var condition: CompiledCondition?
  /// The route's identity (its name, or what it connects and does), made once: it keys the
  /// persisted cycle position and names the route in status.
  public let id: String
  package var counters = RouteCounters()

  package init(spec: RouteSpec, sourceType: ValueType, targetType: ValueType, momentaryDelayMs: Int) {
    self.spec = spec
    self.sourceType = sourceType
    self.targetType = targetType
    self.momentaryDelayMs = momentaryDelayMs
    id = spec.identity
  }

  public var targets: [PortAddress] { spec.targets }
  public var cyclesTargets: Bool { !spec.cycleTo.isEmpty }

  /// The key a value is matched by in `filter` and `map`.
  package static func matchKey(_ value: Value) -> String {
    if case .button(let event) = value { return event.action.name }
    if case .text(let text) = value { return text }
    return value.description
  }
}
