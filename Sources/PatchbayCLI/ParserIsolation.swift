import CProcessControl
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
  /// How long one child may take before it counts as hung (a 1 MB config parses in well under).
  static let deadlineMilliseconds: Int32 = 20_000

  /// nil when the parser survives every file of the config at `mainFile`; otherwise where it
  /// broke, as a diagnostic for the user.
  static func crash(mainFile: String) -> ConfigDiagnostic? {
    let files = ConfigLoader.files(mainFile: mainFile).filter { FileManager.default.isReadableFile(atPath: $0) }
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

  /// Runs `patchbay parse-toml` on the files. Spawned and reaped here, by its pid (Foundation's
  /// `Process` watched for the child's end through SIGCHLD, and in the hub, with two reloads and
  /// plugin hosts starting at once, that news was lost now and then: a reload waited 20 s per
  /// child for an end that had happened).
  private static func parse(_ files: [String], lines: Int?) -> Outcome {
    let executable = "/proc/self/exe"
    let arguments = [executable, "parse-toml"] + (lines.map { ["--lines", String($0)] } ?? []) + ["--"] + files
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return .unavailable(String(cString: strerror(errno))) }
    // Not inherited by anything else this process starts meanwhile (a plugin host would keep
    // the write end open and the read below would not see the end).
    _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    // A clean signal state: the hub's threads block signals the child must not inherit blocked.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    pc_spawnattr_clean_signals(&attributes)
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    close(ends[1])
    guard spawned == 0 else {
      close(ends[0])
      return .unavailable(String(cString: strerror(spawned)))
    }
    // The child writes only file names, far less than a pipe holds, so it never blocks on us:
    // wait for its end (its pidfd), then read what it wrote.
    let finished = pc_wait_for_end(pid, deadlineMilliseconds) == 1
    if !finished { kill(pid, SIGKILL) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    // It has ended, so all it wrote is in the pipe: read without blocking (should another child
    // hold the write end, the read would otherwise wait for that one too).
    _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
    var named = Data()
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      named.append(contentsOf: chunk[..<count])
    }
    close(ends[0])
    if !finished { return .died("did not finish within 20 s", lastLine(of: named)) }
    if status & 0x7f != 0 { return .died("aborted (signal \(status & 0x7f))", lastLine(of: named)) }
    let code = (status >> 8) & 0xff
    return code == 0 ? .survived : .died("failed (exit \(code))", lastLine(of: named))
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

  private static func lastLine(of data: Data) -> String? {
    String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init)
  }
}

extension ConfigLoader {
  /// The loader every CLI command uses: files are parsed in a child process first.
  static let isolated = ConfigLoader(preflight: ParserIsolation.crash)
}
