/// How long the history keeps values and in what detail.
public struct HistoryPolicy: Sendable, Equatable {
  /// Older values are deleted.
  public var retentionSeconds: Double
  /// Past this size (the database file) the oldest values are deleted.
  public var maximumBytes: Int
  /// Numeric values older than this become one point per minute (mean, min, max); other
  /// values older than this keep only their changes.
  public var rawSeconds: Double = 86_400
  /// How often (by the recorder's clock) retention, downsampling and the size cap are applied.
  public var maintenanceInterval: Double = 60

  public init(retentionDays: Double, maximumMB: Double) {
    retentionSeconds = retentionDays * 86_400
    maximumBytes = Int(maximumMB * 1_048_576)
  }
}
