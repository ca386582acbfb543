import CProcessControl
import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What the host saw a plugin do during a conformance run (`patchbay plugin test`), reported
/// as it happens: callbacks beginning and ending (the checker measures hangs and names the
/// callback a crash happened in), ABI rules the host refused a call under, and the threads
/// left after destroy(). The host's checks are the production ones; this only records them.
final class ConformanceObserver: Sendable {
  /// A rule the host enforces on every call; the names are the checker's rule names.
  enum Rule: String {
    case portsDeclaredInCreate = "ports-declared-in-create"
    case noPublishBeforeStart = "no-publish-before-start"
    case noPublishAfterStop = "no-publish-after-stop"
    case publishMatchesPort = "publish-matches-port"
  }

  /// The name of the thread a callback runs on, restored when it returns.
  struct Callback {
    var name: String
    fileprivate var threadName: String
  }

  let report = ReportChannel()
  /// How long to watch the plugin after stop() returned (publishes from its threads) and
  /// how long to wait for its threads to end after destroy().
  let afterStopMs: Int
  private let baseline = Mutex<ThreadCensus?>(nil)
  private let violations = Mutex<[Rule: Int]>([:])
  /// The window being watched: the rules whose violation ends it, and what wakes its waiter.
  private let watching = Mutex<(rules: Set<Rule>, woken: DispatchSemaphore)?>(nil)

  init(afterStopMs: Int) { self.afterStopMs = afterStopMs }

  /// The threads before create(): what is left after destroy() is compared with it.
  func takeBaseline() { baseline.withLock { $0 = ThreadCensus.take() } }

  /// Threads the plugin starts inside a callback inherit the name of the thread it runs on:
  /// a libdispatch worker, whose name would hide them among the pool's. This one is plain.
  func callbackBegins(_ name: String) -> Callback {
    let saved = Self.threadName()
    Self.setThreadName("plugin-context")
    report.write("begin", name)
    return Callback(name: name, threadName: saved)
  }

  func callbackEnded(_ callback: Callback, status: Int32 = 0, message: String = "") {
    report.write("end", callback.name, String(status), message)
    Self.setThreadName(callback.threadName)
  }

  /// The calling thread's name, through /proc (pthread_setname_np is a GNU extension Swift's
  /// Glibc module does not show).
  private static func threadName() -> String {
    let file = open("/proc/thread-self/comm", O_RDONLY)
    guard file >= 0 else { return "" }
    defer { close(file) }
    var buffer = [UInt8](repeating: 0, count: 32)
    let count = read(file, &buffer, buffer.count)
    return count > 0 ? String(decoding: buffer[0..<count].prefix(while: { $0 != 10 && $0 != 0 }), as: UTF8.self) : ""
  }

  private static func setThreadName(_ name: String) {
    let file = open("/proc/thread-self/comm", O_WRONLY)
    guard file >= 0 else { return }
    defer { close(file) }
    _ = name.withCString { write(file, $0, min(strlen($0), 15)) }
  }

  /// A call the host refused under `rule`; the first few of each rule are reported.
  func violation(_ rule: Rule, _ detail: String) {
    let count = violations.withLock { counts in
      counts[rule, default: 0] += 1
      return counts[rule]!
    }
    if count <= 3 { report.write("violation", rule.rawValue, detail) }
    watching.withLock { window in
      if let window, window.rules.contains(rule) { window.woken.signal() }
    }
  }

  /// Watches the plugin for `milliseconds`, or until it breaks one of `rules`: a conforming
  /// plugin shows nothing, so only its misstep can end the window early.
  func watch(for rules: Set<Rule>, milliseconds: Int) {
    let woken = DispatchSemaphore(value: 0)
    watching.withLock { $0 = (rules, woken) }
    _ = woken.wait(timeout: .now() + .milliseconds(max(0, milliseconds)))
    watching.withLock { $0 = nil }
  }

  /// After stop() returned: the plugin's threads must not publish any more; watch them.
  func stopReturned() {
    report.write("stopped")
    watch(for: [.noPublishAfterStop], milliseconds: afterStopMs)
  }

  /// After destroy(): the plugin's threads must be gone. They may still be ending, so the
  /// census waits for the end of those it found (and of any they started meanwhile).
  func destroyed() {
    if let baseline = baseline.withLock({ $0 }) {
      let deadline = ContinuousClock.now + .milliseconds(afterStopMs)
      var census = ThreadCensus.take()
      while !census.added(since: baseline).isEmpty {
        let left = deadline - .now
        guard left > .zero else { break }
        let milliseconds = Int(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
        let ids = census.addedIDs(since: baseline)
        let ended = ids.withUnsafeBufferPointer {
          pc_wait_for_threads_end($0.baseAddress, Int32($0.count), Int32(max(1, milliseconds)))
        }
        if ended == 0 { break }
        if ended < 0 {
          // Before Linux 6.9 a thread's end has no event: the rest of the window is waited out once.
          watch(for: [], milliseconds: milliseconds)
          census = ThreadCensus.take()
          break
        }
        census = ThreadCensus.take()
      }
      let left = census.added(since: baseline)
      report.write("threads", String(left.count), left.joined(separator: ", "))
    }
    report.write("done")
  }
}
