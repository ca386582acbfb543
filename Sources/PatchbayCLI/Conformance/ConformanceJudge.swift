import CPatchbayPlugin
import Foundation
import PatchbayWire

/// Turns what the plugin hosts reported into one verdict per rule.
struct ConformanceJudge {
  var lifecycle: HostSession
  var configRuns: [(variant: ConfigVariant, session: HostSession)]
  /// The hang deadline, in seconds.
  var hangDeadline: Double
  /// The lifecycle once more without the sandbox, run when it failed confined.
  var unconfined: HostSession? = nil

  /// The lifecycle failed while the host was confined by Landlock.
  var lifecycleFailedConfined: Bool {
    lifecycle.events("sandbox").first?.dropFirst().first == "landlock" && lifecycleOutcome.0 == .fail
  }

  func verdicts() -> [ConformanceVerdict] {
    var verdicts: [ConformanceVerdict] = []
    func add(_ rule: ConformanceRule, _ outcome: ConformanceVerdict.Outcome, _ reason: String) {
      verdicts.append(ConformanceVerdict(rule: rule, outcome: outcome, reason: reason))
    }
    guard let descriptor = lifecycle.events("descriptor").first, descriptor.count >= 3 else {
      add(.descriptor, .fail, "the plugin host ended before it could describe the plugin: \(ending(lifecycle))")
      for rule in ConformanceRule.allCases.dropFirst() {
        add(rule, .skip, "not run: the library could not be described")
      }
      return verdicts
    }
    guard descriptor[1] == "ok" else {
      add(.descriptor, .fail, descriptor[2])
      for rule in ConformanceRule.allCases.dropFirst() { add(rule, .skip, "not run: the descriptor was refused") }
      return verdicts
    }
    add(.descriptor, .pass, descriptor[2])
    add(.lifecycle, lifecycleOutcome.0, lifecycleOutcome.1)
    let sessions = [lifecycle] + configRuns.map(\.session)
    let created = lifecycle.ended("create") != nil
    let stopped = !lifecycle.events("stopped").isEmpty
    for (rule, reached) in [
      (ConformanceRule.portsDeclaredInCreate, created), (.noPublishBeforeStart, created),
      (.noPublishAfterStop, stopped),
      (.publishMatchesPort, created),
    ] {
      let seen = sessions.flatMap { $0.events("violation") }.filter { $0.count >= 3 && $0[1] == rule.rawValue }
      if let first = seen.first {
        add(rule, .fail, first[2] + (seen.count > 1 ? " (and \(seen.count - 1) more)" : ""))
      } else if reached {
        add(rule, .pass, "the plugin did not try")
      } else {
        add(
          rule, .skip,
          "not reached: the run ended before \(rule == .noPublishAfterStop ? "stop()" : "create()") returned")
      }
    }
    add(.callbacksReturnInTime, timeliness.0, timeliness.1)
    if let threads = lifecycle.events("threads").first, threads.count >= 3 {
      let count = Int(threads[1]) ?? 0
      if count == 0 {
        add(.noThreadsAfterStop, .pass, "no thread of the plugin left after destroy()")
      } else {
        add(.noThreadsAfterStop, .fail, "\(count) thread(s) still running after stop() and destroy(): \(threads[2])")
      }
    } else {
      add(.noThreadsAfterStop, .skip, "not reached: the run ended before destroy()")
    }
    add(.noCrash, crashOutcome.0, crashOutcome.1)
    add(.configErrorsAreClear, configOutcome.0, configOutcome.1)
    add(.sandbox, sandboxOutcome.0, sandboxOutcome.1)
    return verdicts
  }

  /// The host confined itself before loading the plugin; the lifecycle passing under it is
  /// what this rule adds (the plugin needs nothing an instance would not be given).
  private var sandboxOutcome: (ConformanceVerdict.Outcome, String) {
    guard let line = lifecycle.events("sandbox").first, line.count >= 3 else {
      return (.skip, "the host did not report its sandbox")
    }
    guard line[1] == "landlock" else { return (.skip, "not confined on this machine: \(line[2])") }
    switch lifecycleOutcome.0 {
    case .pass: return (.pass, "the lifecycle passed confined (\(line[2]))")
    case .fail:
      guard let unconfined,
        Self(lifecycle: unconfined, configRuns: [], hangDeadline: hangDeadline).lifecycleOutcome.0 == .pass
      else { return (.pass, "the lifecycle fails unconfined too: see lifecycle") }
      return (
        .fail,
        "the lifecycle fails confined (\(line[2])) and passes unconfined: a file or port the plugin needs must come from its config"
          + " or [instances.NAME.sandbox] (docs/plugin-authors.md, \"What a plugin may touch\")"
      )
    case .skip: return (.skip, "not reached: see lifecycle")
    }
  }

  private var lifecycleOutcome: (ConformanceVerdict.Outcome, String) {
    for callback in ["create", "start", "stop"] {
      guard let ended = lifecycle.ended(callback) else {
        if callback == "create", let failed = lifecycle.events("failed").first, failed.count >= 4 {
          return (.fail, "the host refused the plugin: \(failed[3])")
        }
        return (.skip, "the run ended before \(callback)() returned: see no-crash and callbacks-return-in-time")
      }
      guard ended.status == PB_OK else {
        let hint = callback == "create" ? " (give the instance's keys with --config FILE)" : ""
        return (.fail, "\(callback)() returned \(describe(ended))\(hint)")
      }
    }
    let inputs = lifecycle.events("end").filter { $0.count > 1 && $0[1].hasPrefix("receive(") }.count
    return (.pass, "create, start, \(inputs) input(s), stop and destroy")
  }

  private var timeliness: (ConformanceVerdict.Outcome, String) {
    let deadline = Int((hangDeadline * 1000).rounded())
    let runs = [("", lifecycle)] + configRuns.map { (" (with \($0.variant.label))", $0.session) }
    for (label, session) in runs {
      if case .hung(let callback, let milliseconds) = session.ending {
        return (
          .fail,
          "\(callback)\(label) did not return within the hang deadline of \(deadline) ms (killed after \(milliseconds) ms);"
            + " the hub kills such an instance"
        )
      }
      if let slow = session.durations.first(where: { $0.milliseconds > deadline }) {
        return (
          .fail,
          "\(slow.callback)\(label) took \(slow.milliseconds) ms, longer than the hang deadline of \(deadline) ms"
        )
      }
    }
    let slowest = lifecycle.durations.max { $0.milliseconds < $1.milliseconds }
    return (
      .pass, slowest.map { "slowest: \($0.callback) \($0.milliseconds) ms of \(deadline) ms" } ?? "no callback ran"
    )
  }

  private var crashOutcome: (ConformanceVerdict.Outcome, String) {
    switch lifecycle.ending {
    case .done: return (.pass, "the host ended normally")
    case .hung: return (.skip, "the host was killed for a hang first")
    case .signaled, .exited(HostExitCode.pluginCalledExit.rawValue), .exited(HostExitCode.pluginFault.rawValue):
      return (.fail, ending(lifecycle))
    case .exited: return (.pass, "no crash; the run ended early: \(ending(lifecycle))")
    }
  }

  private var configOutcome: (ConformanceVerdict.Outcome, String) {
    var refused: [String] = []
    var accepted = 0
    for (variant, session) in configRuns {
      switch session.ending {
      case .signaled, .exited(HostExitCode.pluginCalledExit.rawValue), .exited(HostExitCode.pluginFault.rawValue):
        return (.fail, "with \(variant.label): \(ending(session))")
      case .hung(let callback, let milliseconds):
        return (.fail, "with \(variant.label): \(callback) hung (killed after \(milliseconds) ms)")
      default: break
      }
      guard let created = session.ended("create") else {
        return (.fail, "with \(variant.label): the run ended before create() returned: \(ending(session))")
      }
      switch created.status {
      case PB_OK: accepted += 1
      case PB_ERR_INVALID_CONFIG where !created.message.isEmpty:
        refused.append("with \(variant.label): \(created.message)")
      case PB_ERR_INVALID_CONFIG:
        return (.fail, "with \(variant.label): PB_ERR_INVALID_CONFIG without a message saying what is wrong")
      default:
        return (.fail, "with \(variant.label): create() returned \(describe(created)); expected PB_ERR_INVALID_CONFIG")
      }
    }
    let example = refused.first.map { "; e.g. \($0)" } ?? ""
    return (
      .pass,
      "\(configRuns.count) config variants: \(refused.count) refused with PB_ERR_INVALID_CONFIG, \(accepted) accepted\(example)"
    )
  }

  private func describe(_ ended: (status: Int32, message: String)) -> String {
    PluginStatusName.of(ended.status) + (ended.message.isEmpty ? "" : ": \(ended.message)")
  }

  /// How a session ended, in words, naming the callback it ended in.
  private func ending(_ session: HostSession) -> String {
    let during = session.openCallback.map { " during \($0)" } ?? " outside any callback (a plugin thread)"
    switch session.ending {
    case .done: return "ended normally"
    case .hung(let callback, let milliseconds): return "\(callback) hung (killed after \(milliseconds) ms)"
    case .signaled(let number):
      return "the plugin host was killed by signal \(number) (\(String(cString: strsignal(number))))\(during)"
    case .exited(HostExitCode.pluginCalledExit.rawValue): return "the plugin called exit()\(during)"
    case .exited(5):
      let last = session.events("log").last.map { ": \($0.last ?? "")" } ?? ""
      return "the plugin gave up with report_fault\(during)\(last)"
    case .exited(let status):
      let failed = session.events("failed").first.map { ": \($0.last ?? "")" } ?? ""
      return "the plugin host exited with status \(status)\(failed)"
    }
  }
}
