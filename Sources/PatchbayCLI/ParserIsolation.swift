import ChildProcesses
import Foundation
import PatchbayHub

#if canImport(Glibc)
  import Glibc
#endif

/// Parses the config's TOML in a child process before the CLI parses it in its own.
///
/// toml++ (inside TOMLKit) aborts the process on some malformed input instead of reporting it.
/// `TOMLTrapGuard` catches the traps the fuzzer found; this catches the rest, so `run`,
/// `check`, `status` and the other commands print an error naming the file and line instead of
/// dying. Parsing is deterministic: a file the child survives, the parent survives too.
enum ParserIsolation {
  /// The CPU time one child may use before it counts as hung (a 1 MB config parses in well
  /// under). CPU time, not time on the clock: on a loaded machine a healthy parse waits for the
  /// CPU far longer than it runs (a test suite beside stress-ng and compilers, at a load of 17
  /// on 2 cores, saw a small config take more than 20 s on the clock).
  static let cpuBudgetSeconds = 20.0
  /// The clock's backstop, for a child that stops without spinning.
  static let wallDeadlineSeconds = 600.0

  /// nil when the parser survives every file of the config at `mainFile`; otherwise where it
  /// broke, as a diagnostic for the user.
  static func crash(mainFile: String) -> ConfigDiagnostic? {
    // A FIFO would block the child until it is killed: the loader reports it instead.
    let files = ConfigLoader.files(mainFile: mainFile).filter {
      FileManager.default.isReadableFile(atPath: $0) && TOMLDocument.specialFileKind($0) == nil
    }
    guard !files.isEmpty else { return nil }
    let whole = parse(files, lines: nil)
    guard case .died(let how, let lastFile) = whole, let file = lastFile else {
      if case .unavailable(let reason) = whole {
        return ConfigDiagnostic(file: mainFile, message: "cannot check the TOML syntax in a child process: \(reason)")
      }
      return nil
    }
    let line = firstBreakingLine(of: file)
    return ConfigDiagnostic(
      file: file, line: line,
      message:
        "the TOML parser (toml++) \(how) on this file instead of reporting the mistake;"
        + " the trouble is \(line == nil ? "somewhere in it" : "on this line or just before it")"
        + " (look for a stray or unbalanced bracket, brace or quote)")
  }

  private enum Outcome {
    case survived
    /// How it died, and the last file it named before dying.
    case died(String, String?)
    case unavailable(String)
  }

  /// Runs `patchbay parse-toml` on the files, as a `ChildProcess` (swift-subprocess: spawned
  /// with posix_spawn, its end seen through its pidfd and reaped by its pid, never by a SIGCHLD
  /// handler or a wait for any child, so the hub's own reaping of plugin hosts is untouched;
  /// docs/architecture.md). Foundation's `Process` watched for the end through SIGCHLD, and in
  /// the hub, with two reloads and plugin hosts starting at once, that news was lost now and
  /// then: a reload waited 20 s per child for an end that had happened.
  private static func parse(_ files: [String], lines: Int?) -> Outcome {
    let arguments = ["parse-toml"] + (lines.map { ["--lines", String($0)] } ?? []) + ["--"] + files
    let child: ChildProcess
    do {
      child = try ChildProcess("/proc/self/exe", arguments, standardError: .discarded)
    } catch {
      return .unavailable("\(error)")
    }
    // The child prints the name of each file before parsing it: the last one is where it died.
    if let hung = waitWithinBudget(child) {
      child.signal(SIGKILL)
      _ = try? child.waitForExit(within: 30)
      return .died(hung, lastLine(of: child))
    }
    switch child.termination {
    case .exited(0): return .survived
    case .exited(let code): return .died("failed (exit \(code))", lastLine(of: child))
    case .signaled(let signal): return .died("aborted (signal \(signal))", lastLine(of: child))
    case nil: return .unavailable("its end could not be watched")
    }
  }

  /// Waits for the child to end; nil when it did, else how it overran its CPU budget or the
  /// clock's backstop.
  private static func waitWithinBudget(_ child: ChildProcess) -> String? {
    let started = ContinuousClock.now
    while (try? child.waitForExit(within: 0.5)) == nil {
      if let used = cpuSeconds(of: child.pid), used > cpuBudgetSeconds {
        return "used more than \(Int(cpuBudgetSeconds)) s of CPU time without finishing"
      }
      if ContinuousClock.now - started > .seconds(wallDeadlineSeconds) {
        return "did not finish within \(Int(wallDeadlineSeconds)) s"
      }
    }
    return nil
  }

  /// The user and system CPU time a running process has used (`/proc/PID/stat`, fields 14 and
  /// 15, in clock ticks); nil once it is gone.
  private static func cpuSeconds(of pid: Int32) -> Double? {
    guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let afterName = stat.lastIndex(of: ")")
    else { return nil }
    // Fields after the name, which may hold spaces: state is field 3, utime 14, stime 15.
    let fields = stat[stat.index(after: afterName)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// The smallest number of leading lines that still make the parser die: the line at fault.
  private static func firstBreakingLine(of file: String) -> Int? {
    guard let data = FileManager.default.contents(atPath: file) else { return nil }
    var low = 1
    var high = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).count
    guard case .died = parse([file], lines: high) else { return nil }
    while low < high {
      let middle = (low + high) / 2
      if case .died = parse([file], lines: middle) { high = middle } else { low = middle + 1 }
    }
    return high
  }

  private static func lastLine(of child: ChildProcess) -> String? {
    child.lines.last { !$0.isEmpty }
  }
}

extension ConfigLoader {
  /// The loader every CLI command uses: files are parsed in a child process first.
  static let isolated = ConfigLoader(preflight: ParserIsolation.crash)
}
