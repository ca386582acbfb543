/// What a trigger does about occurrences it missed while the hub or the plugin was stopped
/// (or the clock jumped past them).
public enum CatchUpPolicy: String, Sendable, CaseIterable {
  /// Missed occurrences are logged, not fired.
  case skip
  /// The newest missed occurrence fires once, if it is no older than `max_late`.
  case once
}
