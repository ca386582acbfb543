/// Why a bridge answer could not be read.
public enum HueParseError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Not JSON at all (an HTML error page from an overloaded bridge, a proxy, garbage).
  case notJSON(excerpt: String)
  /// JSON, but not the shape this endpoint answers with.
  case unexpectedShape(String)
  /// The bridge answered with error entries instead of the resource (unknown username, ...).
  case bridgeErrors([HueAPIError])

  public var description: String {
    switch self {
    case .notJSON(let excerpt): "the answer is not JSON: \(excerpt)"
    case .unexpectedShape(let what): "unexpected answer: \(what)"
    case .bridgeErrors(let errors): errors.map(\.description).joined(separator: "; ")
    }
  }
}
