/// Log levels, matching `PB_LOG_*`.
public enum LogLevel: UInt32, Sendable {
  case trace = 0, debug, info, notice, warning, error
}
