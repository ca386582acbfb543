/// When the supervisor restarts an instance whose process ended (Erlang/OTP child types).
public enum RestartPolicy: String, Sendable, CaseIterable, Codable {
  /// Always restart, whatever the exit.
  case permanent
  /// Restart only after an abnormal end (crash, signal, non-zero exit, hang).
  case transient
  /// Never restart.
  case temporary
}
