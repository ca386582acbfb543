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

  public var id: String { spec.identity }
  public var targets: [PortAddress] { spec.targets }
  public var cyclesTargets: Bool { !spec.cycleTo.isEmpty }

  /// The key a value is matched by in `filter` and `map`.
  package static func matchKey(_ value: Value) -> String {
    if case .button(let event) = value { return event.action.name }
    if case .text(let text) = value { return text }
    return value.description
  }
}
