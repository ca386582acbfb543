/// One configured trigger: its output port's name, its rule and its catch-up policy.
public struct TriggerSpec: Sendable, Hashable {
  public var name: String
  public var rule: TriggerRule
  public var catchUp: CatchUpPolicy
  /// Seconds: how late a missed occurrence may still fire under `catchUp = .once`.
  public var maxLate: Int64

  public static let defaultMaxLate: Int64 = 600
  /// A day: a trigger that late is no longer about its time (and the catch-up search stays short).
  public static let longestMaxLate: Int64 = 86400

  public init(name: String, rule: TriggerRule, catchUp: CatchUpPolicy = .skip, maxLate: Int64 = defaultMaxLate) {
    self.name = name
    self.rule = rule
    self.catchUp = catchUp
    self.maxLate = maxLate
  }
}
