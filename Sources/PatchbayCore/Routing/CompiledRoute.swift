import PatchbayValues

/// A route checked against the ports the instances declared: every constant parsed as the
/// type it will carry, so nothing is converted or guessed while values flow. A class: the hot
/// path takes routes out of the table per message, and copying the struct (its spec and
/// tables) was about a tenth of the hub's instructions per hop (callgrind).
public final class CompiledRoute: Sendable {
  public let spec: RouteSpec
  public let sourceType: ValueType
  public let targetType: ValueType
  public let filter: [Value]?
  /// Keyed by the source value's text (`click`, `true`, `42`).
  public let map: [String: Value]?
  public let constant: Value?
  public let cycle: [Value]?
  public let momentaryReset: Value?
  public let momentaryDelayMs: Int
  public let condition: CompiledCondition?
  /// The route's identity (its name, or what it connects and does), made once: it keys the
  /// persisted cycle position and names the route in status.
  public let id: String
  package let counters: RouteCounters
  public let targets: [PortAddress]
  public let cyclesTargets: Bool

  package init(
    spec: RouteSpec, sourceType: ValueType, targetType: ValueType, filter: [Value]?, map: [String: Value]?,
    constant: Value?, cycle: [Value]?, momentaryReset: Value?, condition: CompiledCondition?,
    counters: RouteCounters
  ) {
    self.spec = spec
    self.sourceType = sourceType
    self.targetType = targetType
    self.filter = filter
    self.map = map
    self.constant = constant
    self.cycle = cycle
    self.momentaryReset = momentaryReset
    self.momentaryDelayMs = spec.momentary?.afterMs ?? 0
    self.condition = condition
    self.counters = counters
    id = spec.identity
    targets = spec.targets
    cyclesTargets = !spec.cycleTo.isEmpty
  }

  /// The key a value is matched by in `filter` and `map`.
  package static func matchKey(_ value: Value) -> String {
    if case .button(let event) = value { return event.action.name }
    if case .text(let text) = value { return text }
    return value.description
  }
}
