import PatchbayValues

/// The numeric supervision keys of an `[instances.NAME]` table: each one's range (in the unit
/// the config is written in) and where it goes in `SupervisionSettings`. The one place these
/// keys are named: the parser and `ConfigLoader.hubInstanceKeys` both read this table.
package struct SupervisionKey: Sendable {
  package let name: String
  package let minimum: Double
  package let maximum: Double
  package let apply: @Sendable (inout SupervisionSettings, Double) -> Void

  /// The value when it is a number in range, else nil (the caller reports the key).
  package func accept(_ value: JSONValue) -> Double? {
    guard let number = value.doubleValue, number >= minimum, number <= maximum else { return nil }
    return number
  }

  package var rangeMessage: String { "must be a number from \(Int(minimum)) to \(Int(maximum))" }

  package static let all: [SupervisionKey] = [
    SupervisionKey(name: "backoff_initial_ms", minimum: 0, maximum: 3_600_000) { $0.backoffInitial = $1 / 1000 },
    SupervisionKey(name: "backoff_max_ms", minimum: 0, maximum: 86_400_000) { $0.backoffMax = $1 / 1000 },
    SupervisionKey(name: "max_restarts", minimum: 0, maximum: 1_000_000) { $0.maxRestarts = Int($1) },
    SupervisionKey(name: "restart_window_s", minimum: 1, maximum: 86_400) { $0.restartWindow = $1 },
    SupervisionKey(name: "stable_after_s", minimum: 0, maximum: 86_400) { $0.stableAfter = $1 },
    SupervisionKey(name: "heartbeat_interval_ms", minimum: 50, maximum: 3_600_000) { $0.heartbeatInterval = $1 / 1000 },
    SupervisionKey(name: "hang_timeout_ms", minimum: 100, maximum: 3_600_000) { $0.hangTimeout = $1 / 1000 },
    SupervisionKey(name: "stop_timeout_ms", minimum: 0, maximum: 600_000) { $0.stopTimeout = $1 / 1000 },
    SupervisionKey(name: "memory_limit_mb", minimum: 0, maximum: 1_048_576) { $0.memoryLimitMB = Int($1) },
    SupervisionKey(name: "open_files", minimum: 0, maximum: 1_048_576) { $0.openFiles = Int($1) },
    SupervisionKey(name: "memory_max_mb", minimum: 16, maximum: 1_048_576) { $0.memoryMaxMB = Int($1) },
    SupervisionKey(name: "pids_max", minimum: 16, maximum: 4_194_304) { $0.pidsMax = Int($1) },
    // cgroup v2's range; 100 is every process's share by default.
    SupervisionKey(name: "cpu_weight", minimum: 1, maximum: 10_000) { $0.cpuWeight = Int($1) },
    SupervisionKey(name: "queue_size", minimum: 1, maximum: 1_000_000) { $0.queueSize = Int($1) },
  ]

  package static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}
