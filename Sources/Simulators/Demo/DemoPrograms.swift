import ChildProcesses
import Foundation
import Synchronization

extension ChildProcess {
  /// Starts a program of the demo. `show` picks the lines worth printing (with `name` before
  /// them); all lines are kept for waiting on, and written to `logFile` when one is given.
  static func demo(
    _ name: String, _ executable: String, _ arguments: [String], show: @escaping @Sendable (String) -> Bool,
    logFile: String? = nil
  ) throws -> ChildProcess {
    let prefix = "    \(name.padding(toLength: 8, withPad: " ", startingAt: 0))| "
    DemoShutdown.install()
    // Shown before a waiter can see them: the story's next heading comes after them.
    let program = try ChildProcess(
      executable, arguments, outputCopy: logFile, onLine: { line in if show(line) { DemoOutput.say(prefix + line) } })
    DemoShutdown.track(program)
    return program
  }

  /// The port a simulator started with `--port 0` got: it says so in its `listening on
  /// [SCHEME://]HOST:PORT` line.
  func listeningPort() throws -> Int {
    let line = try waitForLine(containing: "listening on ", within: 60).text
    let address = line[line.range(of: "listening on ")!.upperBound...].prefix { !$0.isWhitespace }
    guard let colon = address.lastIndex(of: ":"),
      let port = Int(address[address.index(after: colon)...].prefix { $0.isNumber })
    else { throw DemoError("\(executable) printed no port: \(line)") }
    return port
  }

  /// The control socket a simulator was started with (`--control PATH`).
  var controlPath: String { arguments.drop { $0 != "--control" }.dropFirst().first ?? "" }
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
