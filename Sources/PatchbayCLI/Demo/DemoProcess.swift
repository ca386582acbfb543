import Foundation
import PatchbayCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A program the demo runs, its output shown with a prefix and kept for waiting on.
final class DemoProcess: Sendable {
  let name: String
  let process: Process
  /// Its output so far: whole lines, and the start of the next one.
  private let output = Guarded<(lines: [String], partial: Data)>(([], Data()))
  private let show: @Sendable (String) -> Bool
  /// Where its output is also written whole (the hub's log), if anywhere.
  private let log: FileHandle?

  /// `show` picks the lines worth printing; all lines are kept for waiting on, and written to
  /// `logFile` when one is given.
  init(
    name: String, executable: String, arguments: [String], show: @escaping @Sendable (String) -> Bool = { _ in true },
    logFile: String? = nil
  ) throws {
    self.name = name
    self.show = show
    let process = Process()
    self.process = process
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    if let logFile {
      _ = FileManager.default.createFile(atPath: logFile, contents: nil)
      log = FileHandle(forWritingAtPath: logFile)
    } else {
      log = nil
    }
    pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      if data.isEmpty { handle.readabilityHandler = nil }
      self?.append(data)
    }
    try process.run()
  }

  private func append(_ data: Data) {
    log?.write(data)
    let complete = output.withLock { output -> [String] in
      output.partial.append(data)
      var complete: [String] = []
      while let newline = output.partial.firstIndex(of: 0x0A) {
        complete.append(String(decoding: output.partial[output.partial.startIndex..<newline], as: UTF8.self))
        output.partial.removeSubrange(output.partial.startIndex...newline)
      }
      return complete
    }
    // Shown before a waiter can see them: the story's next heading comes after them.
    for line in complete where show(line) {
      DemoOutput.say("    \(name.padding(toLength: 8, withPad: " ", startingAt: 0))| \(line)")
    }
    output.change { $0.lines += complete }
  }

  /// Waits for a line containing `text` that appeared after line number `after`.
  @discardableResult
  func waitForLine(containing text: String, after: Int = 0, within seconds: Double = 60) throws -> String {
    let found = output.wait(until: Date().addingTimeInterval(seconds)) {
      output, timedOut -> Guarded<(lines: [String], partial: Data)>.Step<String?> in
      if let line = output.lines.dropFirst(after).first(where: { $0.contains(text) }) { return .done(line) }
      return timedOut || !(process.isRunning || !output.lines.isEmpty) ? .done(nil) : .wait
    }
    guard let found else { throw DemoError("\(name) did not print '\(text)' within \(Int(seconds)) s") }
    return found
  }

  /// The port a simulator started with `--port 0` got: it says so in its `listening on
  /// [SCHEME://]HOST:PORT` line.
  func listeningPort() throws -> Int {
    let line = try waitForLine(containing: "listening on ")
    let address = line[line.range(of: "listening on ")!.upperBound...].prefix { !$0.isWhitespace }
    guard let colon = address.lastIndex(of: ":"),
      let port = Int(address[address.index(after: colon)...].prefix { $0.isNumber })
    else { throw DemoError("\(name) printed no port: \(line)") }
    return port
  }

  var lineCount: Int { output.withLock { $0.lines.count } }

  func terminate() {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGTERM)
    process.waitUntilExit()
  }

  deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}

struct DemoError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Serialized output, so lines of the simulators and the narrative never interleave mid-line.
enum DemoOutput {
  static let writing = Mutex(())
  static func say(_ line: String) {
    writing.withLock { _ in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
  }
}
