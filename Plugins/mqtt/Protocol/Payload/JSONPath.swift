import PatchbayValues

/// A dotted path into a JSON payload ("state", "a.b"): where a value is read from and written to.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
  public let keys: [String]

  /// Nil when `text` has an empty key ("a..b", "", ".a").
  public init?(_ text: String) {
    let keys = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard !keys.contains(where: \.isEmpty) else { return nil }
    self.keys = keys
  }

  public var description: String { keys.joined(separator: ".") }

  /// The value at the path, or nil when a key on the way is missing or not an object.
  public func value(in document: JSONValue) -> JSONValue? {
    var current = document
    for key in keys {
      guard let next = current[key] else { return nil }
      current = next
    }
    return current
  }

  /// `leaf` wrapped in objects along the path: `a.b` and 1 give {"a":{"b":1}}.
  public func wrap(_ leaf: JSONValue) -> JSONValue {
    keys.reversed().reduce(leaf) { inner, key in .object([(key, inner)]) }
  }
}
