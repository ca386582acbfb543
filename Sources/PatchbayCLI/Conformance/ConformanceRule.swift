/// The ABI rules `patchbay plugin test` checks (patchbay/plugin.h states each), by the names
/// its report and `--json` use.
enum ConformanceRule: String, CaseIterable, Sendable {
  case descriptor = "descriptor"
  case lifecycle = "lifecycle"
  case portsDeclaredInCreate = "ports-declared-in-create"
  case noPublishBeforeStart = "no-publish-before-start"
  case noPublishAfterStop = "no-publish-after-stop"
  case publishMatchesPort = "publish-matches-port"
  case callbacksReturnInTime = "callbacks-return-in-time"
  case noThreadsAfterStop = "no-threads-after-stop"
  case noCrash = "no-crash"
  case configErrorsAreClear = "config-errors-are-clear"
  case sandbox = "sandbox"

  var title: String {
    switch self {
    case .descriptor: "the descriptor: entry symbol, ABI version, size, name, version, callbacks"
    case .lifecycle: "create, start, receive, stop and destroy succeed with the given config"
    case .portsDeclaredInCreate: "ports are declared inside create() only"
    case .noPublishBeforeStart: "nothing is published before start()"
    case .noPublishAfterStop: "nothing is published after stop() returned"
    case .publishMatchesPort: "published values have their port's type, on output ports"
    case .callbacksReturnInTime: "every callback returns within the hang deadline"
    case .noThreadsAfterStop: "no thread of the plugin is left after stop() and destroy()"
    case .noCrash: "no crash, abort or exit() in any callback or plugin thread"
    case .configErrorsAreClear: "a missing or mistyped config key is refused with PB_ERR_INVALID_CONFIG and a message"
    case .sandbox: "the lifecycle runs under the default sandbox an instance with this config gets"
    }
  }
}

/// One rule's outcome.
struct ConformanceVerdict: Sendable, Equatable {
  enum Outcome: String, Sendable { case pass, fail, skip }
  var rule: ConformanceRule
  var outcome: Outcome
  var reason: String
}
