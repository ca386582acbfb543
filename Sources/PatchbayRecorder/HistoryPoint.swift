import PatchbayValues

/// One point of a port's history: a value as it came (`min`, `max` absent) or one minute of
/// numeric values (`value` the mean).
public struct HistoryPoint: Sendable, Equatable, Codable {
  /// Unix seconds.
  public var t: Double
  public var value: JSONValue
  public var min: Double?
  public var max: Double?

  public init(t: Double, value: JSONValue, min: Double? = nil, max: Double? = nil) {
    self.t = t
    self.value = value
    self.min = min
    self.max = max
  }
}

/// `GET /api/history`'s answer (docs/web.md; the page's sparklines read it).
public struct HistoryAnswer: Sendable, Codable {
  public var port: String
  /// Unix seconds: the points start here.
  public var since: Double
  /// Oldest first.
  public var points: [HistoryPoint]
  /// Values of this port dropped from the history (the disk slow or full) since patchbay-web started.
  public var dropped: Int

  public init(port: String, since: Double, points: [HistoryPoint], dropped: Int) {
    self.port = port
    self.since = since
    self.points = points
    self.dropped = dropped
  }
}
