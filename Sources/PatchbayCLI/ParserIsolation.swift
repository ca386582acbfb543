import Foundation
import PatchbayHub

/// Parses the config's TOML in a child process before the CLI parses it in its own.
///
/// toml++ (inside TOMLKit) aborts the process on some malformed input instead of reporting it.
/// `TOMLTrapGuard` catches the traps the fuzzer found; this catches the rest, so `run`,
/// `check`, `status` and the other commands print an error naming the file and line instead of
/// dying. Parsing is deterministic: a file the child survives, the parent survives too.
enum ParserIsolation {
  /// How long one child may take before it counts as hung (a 1 MB config parses in well under).
  static let deadline: DispatchTimeInterval = .seconds(20)

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

  private static func parse(_ files: [String], lines: Int?) -> Outcome {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    process.arguments = ["parse-toml"] + (lines.map { ["--lines", String($0)] } ?? []) + ["--"] + files
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    do {
      try process.run()
    } catch {
      return .unavailable("\(error)")
    }
    // The child writes only file names, far less than a pipe holds, so it never blocks on us.
    let finished = exited.wait(timeout: .now() + deadline) == .success
    if !finished {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    let named = output.fileHandleForReading.readDataToEndOfFile()
    if !finished { return .died("did not finish within 20 s", lastLine(of: named)) }
    if process.terminationReason == .uncaughtSignal {
      return .died("aborted (signal \(process.terminationStatus))", lastLine(of: named))
    }
    return process.terminationStatus == 0
      ? .survived : .died("failed (exit \(process.terminationStatus))", lastLine(of: named))
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
