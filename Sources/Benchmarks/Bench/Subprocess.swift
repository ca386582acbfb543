import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A child program: run to completion for its output, or kept running with its standard
/// output read line by line, each line stamped with the monotonic time it arrived. The lines
/// are behind a mutex; the condition only wakes a waiter (it is held around each append, so a
/// waiter cannot miss one between looking and waiting).
final class Subprocess: Sendable {
  let process = Process()
  private let condition = NSCondition()
  private let lines = Mutex<[(text: String, at: UInt64)]>([])

  /// Starts `executable`; standard error goes to `log` (or is discarded). `environment` adds
  /// to (or replaces in) this process's own.
  init(_ executable: String, _ arguments: [String], log: String? = nil, environment: [String: String] = [:]) throws {
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardInput = FileHandle.nullDevice
    if let log {
      _ = FileManager.default.createFile(atPath: log, contents: nil)
      process.standardError = FileHandle(forWritingAtPath: log)
    } else {
      process.standardError = FileHandle.nullDevice
    }
    try process.run()
    let reader = Thread { [self] in read(pipe.fileHandleForReading.fileDescriptor) }
    reader.name = "bench-output-\(process.processIdentifier)"
    reader.start()
  }

  /// Blocking reads, so a line's time is when it reached us, not when a run loop noticed it.
  private func read(_ descriptor: Int32) {
    var partial: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      let at = monotonicNanos()
      partial += buffer[0..<count]
      var complete: [(text: String, at: UInt64)] = []
      while let newline = partial.firstIndex(of: 0x0A) {
        complete.append((String(decoding: partial[..<newline], as: UTF8.self), at))
        partial.removeSubrange(...newline)
      }
      condition.lock()
      lines.withLock { $0 += complete }
      condition.broadcast()
      condition.unlock()
    }
    condition.lock()
    condition.broadcast()
    condition.unlock()
  }

  var pid: Int32 { process.processIdentifier }
  var lineCount: Int { lines.withLock { $0.count } }
  var output: String { lines.withLock { $0.map(\.text).joined(separator: "\n") } }

  /// The first line after line number `after` that contains `text`, with its arrival time.
  func waitForLine(containing text: String, after: Int = 0, within seconds: Double) throws -> (String, UInt64) {
    let deadline = Date().addingTimeInterval(seconds)
    condition.lock()
    defer { condition.unlock() }
    while true {
      if let line = lines.withLock({ $0.dropFirst(after).first { $0.text.contains(text) } }) { return line }
      guard condition.wait(until: deadline) else {
        throw BenchError(
          "\(process.executableURL?.lastPathComponent ?? "?") printed no '\(text)' within \(Int(seconds)) s")
      }
    }
  }

  /// Ends it with SIGTERM (SIGKILL after 10 s) and waits.
  func terminate() {
    guard process.isRunning else { return }
    kill(pid, SIGTERM)
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { kill(pid, SIGKILL) }
    process.waitUntilExit()
  }

  deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

  /// Runs to completion; standard output and error together.
  static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }
}
