import PatchbayValues

/// One `[[routes]]` entry: a source output, its targets, and the transforms on the way.
public struct RouteSpec: Sendable, Equatable {
  /// Position among the routes of `file`, from 0.
  public var index: Int
  public var name: String?
  public var from: PortAddress
  /// Every message goes to all of these (fan-out).
  public var to: [PortAddress]
  /// Instead of `to`: each message goes to the next of these in turn.
  public var cycleTo: [PortAddress]
  public var filter: [JSONValue]?
  public var map: [(String, JSONValue)]?
  public var value: JSONValue?
  public var cycle: [JSONValue]?
  public var momentary: Momentary?
  /// Fires only while a state output's retained value matches.
  public var when: RouteCondition?
  public var file: String

  public struct Momentary: Sendable, Equatable {
    public var reset: JSONValue
    public var afterMs: Int
  }

  public static func == (lhs: RouteSpec, rhs: RouteSpec) -> Bool { lhs.identity == rhs.identity }

  /// The key under which its transform state (cycle position) is persisted.
  public var identity: String {
    if let name { return name }
    var text = "\(from) -> \((to + cycleTo).map(\.description).joined(separator: ","))"
    if let filter { text += " filter \(JSONValue.array(filter).description)" }
    if let map { text += " map \(JSONValue.object(map).description)" }
    if let value { text += " value \(value.description)" }
    if let cycle { text += " cycle \(JSONValue.array(cycle).description)" }
    if let when { text += " when \(when.description)" }
    return text
  }

  /// Where errors about this route point: `routes[N]`, the Nth `[[routes]]` of its own file
  /// (1-based), so the number can be found in the file the diagnostic names.
  public var keyPath: String { "routes[\(index + 1)]" }

  public var targets: [PortAddress] { cycleTo.isEmpty ? to : cycleTo }
}
