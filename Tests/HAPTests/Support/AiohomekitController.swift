import ChildProcesses
import Foundation
import PatchbayTestSupport
import PatchbayValues
import Synchronization

/// aiohomekit (Scripts/controller.py) in its own process, driven one JSON command at a time.
/// Every command and answer is kept for the transcript.
final class AiohomekitController: Sendable {
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Scripts/controller.py").path

  struct Failure: Error, CustomStringConvertible {
    var type: String
    var message: String
    var description: String { "\(type): \(message)" }
  }

  let process: ChildProcess
  private let sent = Mutex<[(line: Int, text: String)]>([])

  private init(process: ChildProcess) { self.process = process }

  static func start(port: Int) async throws -> AiohomekitController {
    try await offPool {
      let python = try PythonEnvironment.prepared(PythonEnvironment.aiohomekit)
      let process = try ChildProcess(python.python, [script, "127.0.0.1", String(port)], keepInputOpen: true)
      try process.waitForLine(containing: "\"ready\"", within: 120)
      return AiohomekitController(process: process)
    }
  }

  deinit { _ = try? process.terminate(within: 10) }

  /// Sends `command` and returns its "ok" value, or throws its "error".
  @discardableResult
  func send(_ command: [String: Any], within seconds: Double = 120) async throws -> JSONValue {
    let text = String(
      decoding: try JSONSerialization.data(withJSONObject: command, options: [.sortedKeys]), as: UTF8.self)
    return try await offPool { [self] in
      let before = process.lineCount
      sent.withLock { $0.append((before, text)) }
      do {
        try process.write(text + "\n")
      } catch {
        throw Failure(type: "exited", message: "\(error); output:\n\(process.output)")
      }
      var answer: JSONValue?
      try eventually("an answer to \(text); output:\n\(process.output)", within: seconds) {
        answer = process.lines.dropFirst(before).lazy.compactMap(JSONValue.parse).first {
          $0["ok"] != nil || $0["error"] != nil
        }
        return answer != nil || !process.isRunning
      }
      guard let answer else { throw Failure(type: "exited", message: process.output) }
      if let error = answer["error"]?.stringValue {
        throw Failure(type: error, message: answer["message"]?.stringValue ?? "")
      }
      return answer["ok"]!
    }
  }

  /// The error type a command fails with (nil when it succeeded).
  func failure(_ command: [String: Any]) async throws -> String? {
    do {
      try await send(command)
      return nil
    } catch let failure as Failure {
      return failure.type
    }
  }

  /// The accessory's EVENT messages so far, as `{"aid.iid": {"value": ...}}`.
  var events: [JSONValue] {
    process.lines.compactMap(JSONValue.parse).compactMap { $0["event"] == nil ? nil : $0["values"] }
  }

  /// Waits until an event satisfies `condition`.
  func waitForEvent(within seconds: Double = 60, _ condition: @escaping @Sendable ([JSONValue]) -> Bool) async throws {
    try await offPool { [self] in
      try eventually("an event; transcript:\n\(transcript)", within: seconds) { condition(events) }
    }
  }

  /// Commands (">") and everything the controller printed ("<"), in order.
  var transcript: String {
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
  subscript(_ first: String, _ second: String) -> JSONValue? { self[first]?[second] }
}
