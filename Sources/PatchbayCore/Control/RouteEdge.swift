/// One route as the control socket's `routes` command shows it: where values come from, where
/// they go, and what happens on the way (for the dashboard's graph).
public struct RouteEdge: Sendable, Codable, Equatable {
  /// The route's identity (its name, or its text): the same id `status` counts drops under.
  public var id: String
  /// `routes[N]` in its file.
  public var key: String
  public var name: String?
  public var from: String
  public var targets: [String]
  /// What the route does on the way, in order: `filter`, `map`, `value`, `cycle`, `cycle_to`,
  /// `momentary`; empty when it passes every value unchanged.
  public var transforms: [String]
  /// Events dropped on this route because a target's queue was full.
  public var drops: Int

  public init(
    id: String, key: String, name: String?, from: String, targets: [String], transforms: [String], drops: Int
  ) {
    self.id = id
    self.key = key
    self.name = name
    self.from = from
    self.targets = targets
    self.transforms = transforms
    self.drops = drops
  }
}
