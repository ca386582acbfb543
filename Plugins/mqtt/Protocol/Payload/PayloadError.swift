/// Why a received payload was not turned into a value; logged with the topic, then ignored.
public struct PayloadError: Error, Sendable, Equatable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
