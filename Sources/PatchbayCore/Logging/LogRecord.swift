import Foundation
import Logging

/// One line of the hub's log as the control socket's `log` command returns it.
public struct LogRecord: Sendable, Codable, Equatable {
  /// `2026-11-22T20:41:07Z`, as on standard error.
  public var time: String
  /// swift-log's level name: trace, debug, info, notice, warning, error, critical.
  public var level: String
  /// The logger's label: an instance name, or `hub`, `control`, ...
  public var label: String
  public var message: String

  public init(time: String, level: String, label: String, message: String) {
    self.time = time
    self.level = level
    self.label = label
    self.message = message
  }

  /// Whether this record is at `minimum` or more severe (unknown names let everything through).
  public func isAtLeast(_ minimum: String) -> Bool {
    guard let wanted = Logger.Level(rawValue: minimum), let own = Logger.Level(rawValue: level) else { return true }
    return own >= wanted
  }
}
