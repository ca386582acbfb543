import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A `patchbay-sim` simulator started by a test: it binds a port the system chooses and prints
/// it, so no test guesses a free port (a guessed one can be taken before the child binds it).
/// Driven through its Unix control socket; killed when the test lets go of it.
public final class SimulatorUnderTest: Sendable {
  public enum Kind: String, Sendable {
    case flicd, homebridge, hue

    /// Homebridge answers a control line with its result lines and an empty line; flicd and
    /// the Hue bridge answer with one line.
    var answerEnd: String { self == .homebridge ? "\n\n" : "\n" }
  }

  public let kind: Kind
  /// The TCP port the simulator listens on, as it printed it.
  public let port: Int
  public let controlPath: String
  public let process: ChildProcess

  /// Starts `patchbay-sim KIND` with a control socket `DIRECTORY/NAME.sock` and waits until it
  /// listens. `port` 0 lets the system choose; a test that restarts a simulator passes the port
  /// the previous one had, since its clients know that one.
  public init(
    _ kind: Kind, directory: TemporaryDirectory, name: String? = nil, port: Int = 0, arguments: [String] = [],
    within seconds: Double = 60
  ) throws {
    self.kind = kind
    controlPath = directory.path + "/\(name ?? kind.rawValue).sock"
    var command = [kind.rawValue, "--port", String(port), "--control", controlPath]
    // Homebridge's console reads stdin until its end; the others can be told not to.
    if kind != .homebridge { command.append("--no-stdin") }
    let process = try ChildProcess(BuildProducts.executable("patchbay-sim"), command + arguments)
    self.process = process
    // Each simulator prints its control socket once both sockets are ready.
    try eventually("patchbay-sim \(kind.rawValue) to listen; output so far:\n\(process.output)", within: seconds) {
      process.lines.contains { $0.hasPrefix("control socket ") } || !process.isRunning
    }
    guard process.isRunning, let bound = process.lines.lazy.compactMap(Self.listeningPort).first else {
      throw SimulatorControlError(description: "patchbay-sim \(kind.rawValue) did not start:\n\(process.output)")
    }
    self.port = bound
  }

  /// The port in a simulator's `... listening on [SCHEME://]HOST:PORT ...` line.
  static func listeningPort(_ line: String) -> Int? {
    guard let range = line.range(of: "listening on ") else { return nil }
    let address = line[range.upperBound...].prefix { !$0.isWhitespace }
    guard let colon = address.lastIndex(of: ":") else { return nil }
    return Int(address[address.index(after: colon)...].prefix { $0.isNumber })
  }

  /// Sends control lines in one write (so they arrive together, as a slider drag does) and
  /// returns the answers; an answer starting with `error` throws.
  @discardableResult
  public func control(_ lines: String...) throws -> String {
    let end = kind.answerEnd
    let answer = try ControlSocketClient.exchange(path: controlPath, request: lines.map { $0 + "\n" }.joined()) {
      $0.components(separatedBy: end).count > lines.count
    }
    let text = answer.trimmingCharacters(in: .whitespacesAndNewlines)
    let answers = answer.components(separatedBy: end).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    if let refusal = answers.first(where: { $0.hasPrefix("error") }) {
      throw SimulatorControlError(description: "\(lines.joined(separator: "; ")): \(refusal)")
    }
    return text
  }

  public var lines: [String] { process.lines }
  public var output: String { process.output }

  public func waitForLine(containing text: String, within seconds: Double = 30) throws {
    try process.waitForLine(containing: text, within: seconds)
  }

  /// How many printed lines contain `text`.
  public func count(_ text: String) -> Int { lines.filter { $0.contains(text) }.count }

  /// SIGTERM, and waits for the exit.
  public func stop() throws { try process.terminate() }

  /// SIGKILL, and waits for the exit: a crash, as its clients see it.
  public func kill() throws {
    process.signal(SIGKILL)
    try process.waitForExit()
  }
}

/// A simulator refused a control line or did not start.
public struct SimulatorControlError: Error, CustomStringConvertible {
  public var description: String
  public init(description: String) { self.description = description }
}
