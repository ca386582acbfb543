import Foundation
import Subprocess
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif
#if canImport(System)
  import System
#else
  import SystemPackage
#endif

/// A program this process started and watches, on swift-subprocess: its output read line by
/// line (each line stamped with the monotonic time it arrived), its standard input writable,
/// ended with SIGTERM then SIGKILL, its exit status once it has ended and its output reached
/// the end. Tests, `patchbay-sim demo`, `patchbay-bench` and the CLI's TOML parse child run
/// through it. It is killed (SIGKILL) when its owner lets go of it, so a failing caller leaves
/// nothing behind.
///
/// The waits block the calling thread. swift-subprocess's work for every child runs on one
/// serial queue of its own (`ChildProcessExecutor`), and the exit status is read (WNOWAIT) as
/// soon as the child's pidfd says it ended: only swift-subprocess's clean-up and reap after that
/// need the cooperative pool, so callers that block pool threads (synchronous tests run in
/// parallel) cannot starve a wait. The reap follows once a pool thread is free.
public final class ChildProcess: Sendable {
  /// Where the program's standard error goes.
  public enum ErrorOutput: Sendable {
    /// Into the same pipe as standard output, so its lines are among `lines`.
    case merged
    case discarded
    /// Written to this file (created or truncated).
    case file(String)
  }

  /// How the program ended.
  public enum Termination: Sendable, Equatable {
    case exited(Int32)
    /// Ended by this signal.
    case signaled(Int32)
  }

  /// One line the program printed, and when it arrived (CLOCK_MONOTONIC, nanoseconds).
  public struct Line: Sendable {
    public let text: String
    public let arrival: UInt64
  }

  public let executable: String
  public let arguments: [String]
  private let run: ChildProcessRun

  /// Starts `executable` with `arguments`; `environment` adds to (or replaces in) this process's
  /// own. Every line is passed to `onLine` (in order, before a waiter can see it) and every byte
  /// of output is also written to `outputCopy` if given. Standard input is a pipe: closed at once
  /// (the program reads end of file) unless `keepInputOpen`. Throws when it cannot be started.
  public init(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    standardError: ErrorOutput = .merged, keepInputOpen: Bool = false, outputCopy: String? = nil,
    onLine: (@Sendable (String) -> Void)? = nil
  ) throws {
    self.executable = executable
    self.arguments = arguments
    let copy: FileHandle?
    if let outputCopy {
      guard FileManager.default.createFile(atPath: outputCopy, contents: nil),
        let handle = FileHandle(forWritingAtPath: outputCopy)
      else { throw ChildProcessError("cannot write \(outputCopy)") }
      copy = handle
    } else {
      copy = nil
    }
    let run = ChildProcessRun(onLine: onLine, copy: copy)
    self.run = run
    var merged = ProcessInfo.processInfo.environment
    for (key, value) in environment { merged[key] = value }
    let launch = ChildProcessLaunch(
      executable: executable, arguments: arguments,
      environment: merged, standardError: standardError,
      keepInputOpen: keepInputOpen)
    Task(executorPreference: ChildProcessExecutor.shared) { await run.execute(launch) }
    let started = run.wait(until: Date().addingTimeInterval(60)) { state -> Bool? in
      state.failure != nil || state.pid != nil ? true : nil
    }
    if let failure = run.state.withLock({ $0.failure }) {
      throw ChildProcessError("cannot start \(executable): \(failure)")
    }
    guard started != nil else { throw ChildProcessError("\(executable) did not start within 60 s") }
  }

  /// The program's process id (kept after it ended, for messages).
  public var pid: Int32 { run.state.withLock { $0.pid ?? 0 } }

  /// Whether the program has not yet been seen to end (and its output to reach its end).
  public var isRunning: Bool { run.state.withLock { $0.status == nil } }

  /// The output reached its end: every line the program printed is in. (At the program's exit
  /// what is in the pipe is read and the reading stops, even if a program it left running holds
  /// the pipe open.)
  public var outputEnded: Bool { run.state.withLock { $0.outputEnded } }

  /// Every complete line printed so far.
  public var lines: [String] { run.state.withLock { $0.lines.map(\.text) } }

  public var lineCount: Int { run.state.withLock { $0.lines.count } }

  public var output: String { lines.joined(separator: "\n") }

  /// The exit status once the program has ended: its exit code, or the number of the signal that
  /// ended it.
  public var exitStatus: Int32? { run.state.withLock { $0.status } }

  /// How the program ended, once it has (nil too when it could not be watched to its end).
  public var termination: Termination? { run.state.withLock { $0.termination } }

  /// Waits for the first line after line number `after` that contains `text`. Throws when the
  /// time is up or the output ended without one.
  @discardableResult
  public func waitForLine(containing text: String, after: Int = 0, within seconds: Double = 30) throws -> Line {
    let found = run.wait(until: Date().addingTimeInterval(seconds)) { state -> Line?? in
      if let line = state.lines.dropFirst(after).first(where: { $0.text.contains(text) }) { return .some(line) }
      return state.outputEnded ? .some(nil) : nil
    }
    guard let found, let line = found else {
      let why = found == nil ? "within \(seconds) s" : "before its output ended"
      throw ChildProcessError(
        "\((executable as NSString).lastPathComponent) printed no line containing '\(text)' \(why); output:\n\(output)"
      )
    }
    return line
  }

  /// Writes `text` to the program's standard input (started with `keepInputOpen`).
  public func write(_ text: String) throws {
    try run.withInput { writer in _ = try await writer.write(text) }
  }

  /// Closes the program's standard input: it reads end of file.
  public func closeInput() throws {
    try run.withInput { writer in try await writer.finish() }
  }

  /// Sends signal `number` to the program, if it has not ended. (Through its pidfd, and never
  /// after it was reaped, so never to a process that reused its pid.)
  public func signal(_ number: Int32) { run.signal(number) }

  /// Sends SIGTERM and waits up to `seconds` for the end, then SIGKILL and waits again; returns
  /// the exit status.
  @discardableResult
  public func terminate(within seconds: Double = 30) throws -> Int32 {
    if let status = exitStatus { return status }
    signal(SIGTERM)
    if let status = try? waitForExit(within: seconds) { return status }
    signal(SIGKILL)
    return try waitForExit(within: 30)
  }

  /// Waits for the program to end and its output to reach its end; returns its exit status.
  @discardableResult
  public func waitForExit(within seconds: Double = 60) throws -> Int32 {
    let status = run.wait(until: Date().addingTimeInterval(seconds)) { $0.status }
    guard let status else {
      throw ChildProcessError(
        "\((executable as NSString).lastPathComponent) (pid \(pid)) did not exit within \(seconds) s; output:\n\(output)"
      )
    }
    return status
  }

  /// Runs a program to completion (standard error merged into the output); returns its exit
  /// status and output.
  public static func run(_ executable: String, _ arguments: [String], within seconds: Double = 120) throws
    -> (status: Int32, output: String)
  {
    let child = try ChildProcess(executable, arguments)
    let status = try child.waitForExit(within: seconds)
    return (status, child.output)
  }

  deinit { run.signal(SIGKILL) }
}

public struct ChildProcessError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// What one `ChildProcess` starts.
private struct ChildProcessLaunch: Sendable {
  var executable: String
  var arguments: [String]
  var environment: [String: String]
  var standardError: ChildProcess.ErrorOutput
  var keepInputOpen: Bool
}

/// One child's state, shared by its `ChildProcess` (the waiters) and the task that runs it. The
/// state is behind a mutex; the condition only wakes waiters (it is held around every change, so
/// a waiter cannot miss one between looking and waiting).
private final class ChildProcessRun: Sendable {
  struct State {
    var pid: Int32?
    var lines: [ChildProcess.Line] = []
    var partial: [UInt8] = []
    var outputEnded = false
    var status: Int32?
    var termination: ChildProcess.Termination?
    var failure: String?
    /// Sends a signal while the process is known not to be reaped; nil before and after.
    var signaller: (@Sendable (Int32) -> Void)?
    var input: StandardInputWriter?

    mutating func end(_ how: ChildProcess.Termination) {
      outputEnded = true
      termination = how
      switch how {
      case .exited(let code), .signaled(let code): status = code
      }
    }
  }

  let state = Mutex(State())
  private let condition = NSCondition()
  private let onLine: (@Sendable (String) -> Void)?
  private let copy: FileHandle?

  init(onLine: (@Sendable (String) -> Void)?, copy: FileHandle?) {
    self.onLine = onLine
    self.copy = copy
  }

  func change(_ body: (inout State) -> Void) {
    condition.lock()
    state.withLock { body(&$0) }
    condition.broadcast()
    condition.unlock()
  }

  /// Waits until `check` gives a value or `deadline` passes (then nil).
  func wait<T: Sendable>(until deadline: Date, _ check: (State) -> T?) -> T? {
    condition.lock()
    defer { condition.unlock() }
    while true {
      if let value = state.withLock({ check($0) }) { return value }
      if !condition.wait(until: deadline) { return state.withLock { check($0) } }
    }
  }

  func signal(_ number: Int32) {
    // Held while sending: the run clears the signaller under the same lock before the reap.
    state.withLock { $0.signaller?(number) }
  }

  func withInput(_ body: @escaping @Sendable (StandardInputWriter) async throws -> Void) throws {
    guard let writer = state.withLock({ $0.input }) else { throw ChildProcessError("its standard input is closed") }
    let done = DispatchSemaphore(value: 0)
    let failure = Mutex<String?>(nil)
    Task(executorPreference: ChildProcessExecutor.shared) {
      do { try await body(writer) } catch { failure.withLock { $0 = "\(error)" } }
      done.signal()
    }
    done.wait()
    if let failure = failure.withLock({ $0 }) { throw ChildProcessError("writing its standard input: \(failure)") }
  }

  func execute(_ launch: ChildProcessLaunch) async {
    do {
      let status: TerminationStatus
      switch launch.standardError {
      case .merged: status = try await run(launch, error: .combinedWithOutput)
      case .discarded: status = try await run(launch, error: .discarded)
      case .file(let path):
        let descriptor = try FileDescriptor.open(
          FilePath(path), .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: [.ownerReadWrite])
        status = try await run(launch, error: .fileDescriptor(descriptor, closeAfterSpawningProcess: true))
      }
      let termination: ChildProcess.Termination
      switch status {
      case .exited(let code): termination = .exited(code)
      case .signaled(let signal): termination = .signaled(signal)
      }
      change { if $0.termination == nil { $0.end(termination) } }
    } catch {
      change {
        $0.failure = "\(error)"
        $0.outputEnded = true
        if $0.pid != nil && $0.status == nil { $0.status = -1 }
      }
    }
  }

  private func run<ErrorOutput: ErrorOutputProtocol>(_ launch: ChildProcessLaunch, error: ErrorOutput) async throws
    -> TerminationStatus
  {
    let result = try await Subprocess.run(
      .path(FilePath(launch.executable)), arguments: Arguments(launch.arguments),
      // As strings: `.custom([[UInt8]])` strdup()s each entry, so it would need its own NUL.
      environment: .custom(
        Dictionary(uniqueKeysWithValues: launch.environment.map { (Environment.Key(stringLiteral: $0.key), $0.value) })),
      input: .inputWriter, output: .sequence, error: error
    ) { execution in
      let writer = execution.standardInputWriter
      change {
        $0.pid = execution.processIdentifier.value
        $0.signaller = { number in _ = try? execution.send(signal: Signal(rawValue: number)) }
        $0.input = writer
      }
      if !launch.keepInputOpen { try? await writer.finish() }
      do {
        for try await buffer in execution.standardOutput {
          received(buffer.withUnsafeBytes { Array($0) })
        }
      } catch {
        // A failed read ends the output like its end of file.
      }
      received([])
      // The output can end before the program does (it closed its stdout): stay able to signal
      // it until it has ended. Its status is read here, without reaping it: swift-subprocess
      // reaps it after `run`'s own clean-up, which needs a thread of the cooperative pool, and
      // callers that block pool threads in their waits must not wait for that.
      await ProcessEnd.wait(for: execution.processIdentifier)
      let termination = ProcessEnd.termination(of: execution.processIdentifier.value)
      try? copy?.close()
      change {
        $0.signaller = nil
        $0.input = nil
        if let termination { $0.end(termination) }
      }
    }
    return result.terminationStatus
  }

  /// Takes bytes of output (empty: the end) and hands on its complete lines.
  private func received(_ bytes: [UInt8]) {
    if !bytes.isEmpty { copy?.write(Data(bytes)) }
    let arrival = monotonicNanoseconds()
    var complete: [ChildProcess.Line] = []
    state.withLock { state in
      state.partial += bytes
      while let newline = state.partial.firstIndex(of: 0x0A) {
        complete.append(.init(text: String(decoding: state.partial[..<newline], as: UTF8.self), arrival: arrival))
        state.partial.removeSubrange(...newline)
      }
      if bytes.isEmpty && !state.partial.isEmpty {
        complete.append(.init(text: String(decoding: state.partial, as: UTF8.self), arrival: arrival))
        state.partial = []
      }
    }
    if let onLine { for line in complete { onLine(line.text) } }
    change {
      $0.lines += complete
      if bytes.isEmpty { $0.outputEnded = true }
    }
  }
}

/// The end of a child that swift-subprocess has not reaped yet, seen through its pidfd (poll
/// reports it readable once the process has ended) on a thread of its own.
private enum ProcessEnd {
  static func wait(for process: ProcessIdentifier) async {
    let pidfd = process.processDescriptor
    guard pidfd >= 0, !ended(pidfd, timeout: 0) else { return }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      Thread.detachNewThread {
        while !ended(pidfd, timeout: -1) {}
        continuation.resume()
      }
    }
  }

  /// How the ended, not yet reaped child `pid` ended, leaving it to be reaped (WNOWAIT).
  static func termination(of pid: pid_t) -> ChildProcess.Termination? {
    var info = siginfo_t()
    while waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == -1 {
      if errno != EINTR { return nil }
    }
    let status = info._sifields._sigchld.si_status
    switch info.si_code {
    case Int32(CLD_EXITED): return .exited(status)
    case Int32(CLD_KILLED), Int32(CLD_DUMPED): return .signaled(status)
    default: return nil
    }
  }

  private static func ended(_ pidfd: Int32, timeout: Int32) -> Bool {
    var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
    let ready = poll(&entry, 1, timeout)
    if ready < 0 { return errno != EINTR }
    return ready > 0
  }
}

func monotonicNanoseconds() -> UInt64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Runs swift-subprocess's work for every `ChildProcess` on one serial dispatch queue (an
/// overcommitting one, so a blocked cooperative pool never holds it back).
final class ChildProcessExecutor: TaskExecutor {
  static let shared = ChildProcessExecutor()
  private let queue = DispatchQueue(label: "patchbay.child-processes")

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
