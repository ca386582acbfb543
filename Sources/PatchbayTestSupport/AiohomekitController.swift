import Foundation
import PatchbayValues
import Synchronization

/// aiohomekit, the HomeKit controller library Home Assistant uses, in its own process
/// (Scripts/aiohomekit_controller.py in a cached virtual environment), driven one JSON command
/// per line. Every command and answer is kept for the transcript. The HAP tests (an in-process
/// server) and the homekit plugin's tests (a real hub) both use it.
///
/// Each call has a blocking form (for tests whose server is another process) and an async one
/// that waits on a thread of its own (`offPool`: an in-process server needs the cooperative pool).
/// Between two async calls the test waits for a thread of the cooperative pool, which a loaded
/// full run can keep busy for minutes: steps that must follow each other within a time (a
/// pair-setup's 60 s, a prepared write's ttl) belong in one `offPool` block of blocking calls.
///
/// Deadlines are generous (an answer normally takes milliseconds; only a failure waits them out),
/// and a missed one says what the controller printed: its answers and, merged in, its stderr
/// (aiohomekit's warnings, a traceback).
public final class AiohomekitController: Sendable {
  public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Scripts/aiohomekit_controller.py").path

  /// The command line that starts a program; a test in a network namespace wraps it
  /// (`AvahiUnderTest.inPeerNamespace`).
  public typealias Launcher = @Sendable (_ executable: String, _ arguments: [String]) -> (String, [String])

  public struct Failure: Error, CustomStringConvertible {
    public var type: String
    public var message: String
    /// The command that failed.
    public var command = ""
    public var description: String {
      "\(type): \(message)" + (command.isEmpty ? "" : " (after \(command.prefix(300)))")
    }
  }

  public let process: ChildProcess
  private let sent = Mutex<[(line: Int, text: String)]>([])

  /// Starts the controller for the accessory at `host`:`port` and waits until it is ready.
  public init(host: String = "127.0.0.1", port: Int, launcher: Launcher = { ($0, $1) }) throws {
    let python = try PythonEnvironment.prepared(PythonEnvironment.aiohomekit)
    let (executable, arguments) = launcher(python.python, [Self.script, host, String(port)])
    process = try ChildProcess(executable, arguments, keepInputOpen: true)
    // Importing aiohomekit (cryptography, zeroconf) takes seconds idle, far more under load.
    try process.waitForLine(containing: "\"ready\"", within: 300)
  }

  public static func start(host: String = "127.0.0.1", port: Int, launcher: @escaping Launcher = { ($0, $1) })
    async throws -> AiohomekitController
  {
    try await offPool { try AiohomekitController(host: host, port: port, launcher: launcher) }
  }

  deinit { _ = try? process.terminate(within: 10) }

  /// How long a command may take before the test gives up on its answer. aiohomekit gives up on
  /// an unanswered request after 30 s itself (and answers with the error); `wait_closed` waits up
  /// to 240 s.
  public static let answerDeadline: Double = 300

  /// Sends `command` and returns its "ok" value, or throws its "error".
  @discardableResult
  public func send(_ command: [String: Any], within seconds: Double = answerDeadline) throws -> JSONValue {
    try send(line: Self.line(command), within: seconds)
  }

  @discardableResult
  public func send(_ command: [String: Any], within seconds: Double = answerDeadline) async throws -> JSONValue {
    let text = try Self.line(command)
    return try await offPool { [self] in try send(line: text, within: seconds) }
  }

  /// The error type a command fails with (nil when it succeeded).
  public func failure(_ command: [String: Any], within seconds: Double = answerDeadline) throws -> String? {
    try failure(line: Self.line(command), within: seconds)
  }

  public func failure(_ command: [String: Any], within seconds: Double = answerDeadline) async throws -> String? {
    let text = try Self.line(command)
    return try await offPool { [self] in try failure(line: text, within: seconds) }
  }

  private static func line(_ command: [String: Any]) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: command, options: [.sortedKeys]), as: UTF8.self)
  }

  private func failure(line text: String, within seconds: Double) throws -> String? {
    do {
      try send(line: text, within: seconds)
      return nil
    } catch let failure as Failure {
      return failure.type
    }
  }

  @discardableResult
  private func send(line text: String, within seconds: Double) throws -> JSONValue {
    let before = process.lineCount
    sent.withLock { $0.append((before, text)) }
    do {
      try process.write(text + "\n")
    } catch {
      throw Failure(type: "exited", message: "\(error); output:\n\(process.output)")
    }
    var answer: JSONValue?
    try eventually("an answer to \(text); the controller's output (stderr merged):\n\(process.output)", within: seconds)
    {
      answer = process.lines.dropFirst(before).lazy.compactMap(JSONValue.parse).first {
        $0["ok"] != nil || $0["error"] != nil
      }
      return answer != nil || !process.isRunning
    }
    guard let answer else { throw Failure(type: "exited", message: process.output) }
    if let error = answer["error"]?.stringValue {
      throw Failure(type: error, message: answer["message"]?.stringValue ?? "", command: text)
    }
    return answer["ok"]!
  }

  /// The accessory's EVENT messages so far, as `{"aid.iid": {"value": ...}}`.
  public var events: [JSONValue] {
    process.lines.compactMap(JSONValue.parse).compactMap { $0["event"] == nil ? nil : $0["values"] }
  }

  /// The values events carried for `key` ("aid.iid"), in order.
  public func values(of key: String) -> [JSONValue] {
    events.compactMap { $0[key, "value"] }
  }

  /// Waits until the events so far satisfy `condition`.
  public func waitForEvent(within seconds: Double = 120, _ condition: ([JSONValue]) -> Bool) throws {
    try eventually("an event; transcript:\n\(transcript)", within: seconds) { condition(events) }
  }

  public func waitForEvent(within seconds: Double = 120, _ condition: @escaping @Sendable ([JSONValue]) -> Bool)
    async throws
  {
    try await offPool { [self] in try waitForEvent(within: seconds, condition) }
  }

  /// Commands (">") and everything the controller printed ("<"), in order.
  public var transcript: String {
    let lines = process.lines
    let commands = sent.withLock { $0 }
    var out: [String] = []
    var next = 0
    for (index, line) in lines.enumerated() {
      while next < commands.count, commands[next].line <= index {
        out.append("> " + commands[next].text)
        next += 1
      }
      out.append("< " + line)
    }
    out += commands[next...].map { "> " + $0.text }
    return out.joined(separator: "\n")
  }
}

extension JSONValue {
  /// `answer["4.10", "value"]`
  public subscript(_ first: String, _ second: String) -> JSONValue? { self[first]?[second] }

  /// As JSONSerialization would have read it (to send back in a command).
  public var foundation: Any {
    switch self {
    case .null: NSNull()
    case .bool(let flag): flag
    case .integer(let integer): Int(integer)
    case .number(let number): number
    case .string(let string): string
    case .array(let items): items.map(\.foundation)
    case .object(let members): Dictionary(members.map { ($0.0, $0.1.foundation) }, uniquingKeysWith: { $1 })
    }
  }
}
