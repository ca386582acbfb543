import PatchbayValues

/// One value on its way into the history.
public struct HistorySample: Sendable, Equatable {
  /// `INSTANCE.PORT`.
  public var port: String
  /// Unix seconds, from the recorder's clock when the value arrived.
  public var time: Double
  public var value: JSONValue

  public init(port: String, time: Double, value: JSONValue) {
    self.port = port
    self.time = time
    self.value = value
  }
}
