import CPatchbayPlugin
import CSandbox
import Dispatch
import PatchbayCValues
import PatchbayValues
import PatchbayWire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Once a second: the counts the hub shows (refusals, refused system calls, publish pressure)
/// and the summaries of what the refusal budget held back.
extension HostRuntime {
  /// Once a second, for the life of the process (the runtime is never released).
  func scheduleHousekeeping() {
    housekeeping.asyncAfter(deadline: .now() + 1) { [unowned self] in
      reportCountsAndSummaries()
      scheduleHousekeeping()
    }
  }

  static func now() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }

  /// Counts a refused call; logs it within the per-kind budget (a plugin refused 1,000 times a
  /// second must not write 1,000 lines a second).
  func refuse(kind: String, level: UInt8 = UInt8(PB_LOG_WARNING), _ message: @autoclosure () -> String) {
    let admitted = shared.withLock {
      $0.refusals += 1
      return $0.refusalLog.admit(kind, now: Self.now())
    }
    if admitted { log(level, message()) }
  }

  /// Once a second, and at stop (on the housekeeping queue, so totals go out in order): the
  /// refusal and back-pressure counts for `status`, each only when it changed (a flood adds
  /// no frame per event), and the summaries of suppressed lines.
  func reportCountsAndSummaries() {
    let now = Self.now()
    let pressure = outbox.pressure
    let refusedCalls = sb_refused_calls()
    let (total, changed, pressureChanged, callsChanged, logCalls, summaries) = shared.withLock {
      let changed = $0.refusals != $0.refusalsReported
      let callsChanged = refusedCalls != $0.refusedCallsReported
      $0.refusedCallsReported = refusedCalls
      // Within the refusal budget: a plugin refused in a loop writes a few lines, not one a second.
      let logCalls = callsChanged && $0.refusalLog.admit("system call", now: now)
      $0.refusalsReported = $0.refusals
      let pressureChanged = pressure != $0.pressureReported
      $0.pressureReported = pressure
      return (
        $0.refusals, changed, pressureChanged, callsChanged, logCalls,
        $0.refusalLog.dueSummaries(now: now) + $0.pluginLog.dueSummaries(now: now)
      )
    }
    for summary in summaries {
      outbox.send(
        HostMessage.log(
          level: UInt8(PB_LOG_WARNING),
          message:
            "\(summary.suppressed) more '\(summary.kind)' lines suppressed in the last \(Int(summary.seconds.rounded())) s"
        ).encode())
    }
    if changed { outbox.send(HostMessage.refusals(total: total).encode()) }
    if logCalls {
      log(
        UInt8(PB_LOG_WARNING),
        "sandbox: \(refusedCalls) system call(s) refused so far (EPERM), the last one number \(sb_last_refused_call())")
    }
    if callsChanged {
      outbox.send(HostMessage.refusedCalls(total: refusedCalls).encode())
    }
    if pressureChanged {
      outbox.send(HostMessage.publishPressure(busy: pressure.busy, waits: pressure.waits).encode())
    }
  }
}
