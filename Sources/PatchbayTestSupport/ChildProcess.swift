import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A program started by a test, with its output captured line by line. Killed on deinit so a
/// failing test leaves nothing behind.
public final class ChildProcess: Sendable {
  public let process = Process()
  /// What the pipe delivered so far: complete lines, the unfinished last one, and whether it ended.
  private struct Output {
    var lines: [String] = []
    var partial = Data()
    var ended = false
  }
  private let received = Mutex(Output())

  /// Starts `executable` with `arguments`. stdout and stderr are merged into `output`.
  public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let pipe = Pipe()
    // Not inherited by the children other tests start at the same time: one that held this
    // pipe's write end would delay its end of stream until it exits.
    _ = fcntl(pipe.fileHandleForReading.fileDescriptor, F_SETFD, FD_CLOEXEC)
    _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
    process.standardOutput = pipe
    process.standardError = pipe
    pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      guard let self else { return }
      if data.isEmpty {
        handle.readabilityHandler = nil
        self.markEndOfOutput()
        return
      }
      self.append(data)
    }
    try process.run()
  }

  private func append(_ data: Data) {
    received.withLock { output in
      output.partial.append(data)
      while let newline = output.partial.firstIndex(of: 0x0A) {
        output.lines.append(String(decoding: output.partial[output.partial.startIndex..<newline], as: UTF8.self))
        output.partial.removeSubrange(output.partial.startIndex...newline)
      }
    }
  }

  private func markEndOfOutput() { received.withLock { $0.ended = true } }

  /// The pipe reached end of stream: every line the program (and what it started) printed is in.
  public var outputEnded: Bool { received.withLock { $0.ended } }

  /// Every complete line printed so far.
  public var lines: [String] { received.withLock { $0.lines } }

  public var output: String { lines.joined(separator: "\n") }

  public var pid: Int32 { process.processIdentifier }
  public var isRunning: Bool { process.isRunning }

  /// Waits until a printed line contains `text`.
  public func waitForLine(containing text: String, within seconds: Double = 30) throws {
    try eventually("a line containing '\(text)'; output so far:\n\(output)", within: seconds) {
      lines.contains { $0.contains(text) }
    }
  }

  public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

  /// Sends SIGTERM and waits for exit; returns the exit status.
  @discardableResult
  public func terminate(within seconds: Double = 30) throws -> Int32 {
    if process.isRunning { signal(SIGTERM) }
    try eventually("process \(pid) to exit", within: seconds) { !process.isRunning }
    return process.terminationStatus
  }

  /// Waits for the process to exit by itself; returns its exit status.
  @discardableResult
  public func waitForExit(within seconds: Double = 60) throws -> Int32 {
    try eventually("process \(pid) to exit; output so far:\n\(output)", within: seconds) { !process.isRunning }
    return process.terminationStatus
  }

  deinit {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  }
}

/// Runs a program to completion and returns its exit status and merged output.
public func runProgram(_ executable: String, _ arguments: [String], within seconds: Double = 120) throws
  -> (status: Int32, output: String)
{
  let child = try ChildProcess(executable, arguments)
  let status = try child.waitForExit(within: seconds)
  // Wait for the pipe's end, not a fixed time: then every line is in. (A process the program
  // left running may hold the pipe open; then give up waiting after a while.)
  try? eventually("output drained", within: 10) { child.outputEnded }
  return (status, child.output)
}
