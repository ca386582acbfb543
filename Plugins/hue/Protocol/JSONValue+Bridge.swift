import PatchbayValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Reading and writing the bridge's JSON with the hub's `JSONValue` (which keeps booleans
/// apart from numbers, unlike Foundation's JSONSerialization on Linux).
extension JSONValue {
  /// Parses JSON bytes; nil when they are not JSON.
  public init?(data: Data) {
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
    self = value
  }

  /// Compact JSON text.
  public var text: String { description }
}
