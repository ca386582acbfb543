/// One request from a controller.
public struct HTTPRequest: Sendable, Hashable {
  public var method: String
  /// The path without its query ("/characteristics").
  public var path: String
  /// The query's items in order ("id" → "1.10,2.10").
  public var query: [(String, String)]
  /// Header names lower-cased.
  public var headers: [String: String]
  public var body: [UInt8]

  public func queryValue(_ name: String) -> String? { query.first { $0.0 == name }?.1 }

  public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
    lhs.method == rhs.method && lhs.path == rhs.path && lhs.query.map(\.0) == rhs.query.map(\.0)
      && lhs.query.map(\.1) == rhs.query.map(\.1) && lhs.headers == rhs.headers && lhs.body == rhs.body
  }
  public func hash(into hasher: inout Hasher) {
    hasher.combine(method)
    hasher.combine(path)
    hasher.combine(body)
  }
}
