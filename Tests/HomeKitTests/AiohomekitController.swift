import ChildProcesses
import Foundation
import PatchbayTestSupport
import Synchronization

/// aiohomekit as the controller, through the HAP tests' own driver script
/// (Tests/HAPTests/Scripts/controller.py, reused in place): one JSON command per line.
/// A smaller twin of HAPTests' AiohomekitController; both could live in PatchbayTestSupport.
final class AiohomekitController: Sendable {
  static let script = HubUnderTest.repositoryRoot + "/Tests/HAPTests/Scripts/controller.py"

  struct Failure: Error, CustomStringConvertible {
    var type: String
    var message: String
    var description: String { "\(type): \(message)" }
  }

  let process: ChildProcess
  private let transcriptLines = Mutex<[String]>([])

  init(port: Int) throws {
    let python = try PythonEnvironment.prepared(PythonEnvironment.aiohomekit)
    process = try ChildProcess(python.python, [Self.script, "127.0.0.1", String(port)], keepInputOpen: true)
    try process.waitForLine(containing: "\"ready\"", within: 120)
  }

  deinit { _ = try? process.terminate(within: 10) }

  @discardableResult
  func send(_ command: [String: Any], within seconds: Double = 120) throws -> Any {
    let text = String(decoding: try JSONSerialization.data(withJSONObject: command), as: UTF8.self)
    let before = process.lineCount
    transcriptLines.withLock { $0.append("> " + text) }
    try process.write(text + "\n")
    var answer: [String: Any]?
    try eventually("an answer to \(text); output:\n\(process.output)", within: seconds) {
      for line in process.lines.dropFirst(before) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
        if object["ok"] != nil || object["error"] != nil {
          answer = object
          transcriptLines.withLock { $0.append("< " + line) }
          return true
        }
      }
      return !process.isRunning
    }
    guard let answer else { throw Failure(type: "exited", message: process.output) }
    if let error = answer["error"] as? String { throw Failure(type: error, message: "\(answer["message"] ?? "")") }
    return answer["ok"]!
  }

  /// The event lines so far (`{"event": name, "values": {"aid.iid": {"value": ...}}}`).
  var events: [[String: Any]] {
    process.lines.compactMap { line in
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        object["event"] != nil
      else { return nil }
      return object
    }
  }

  /// The values events carried for `key` ("aid.iid"), in order, as text.
  func values(of key: String) -> [String] {
    events.compactMap { event in
      guard let values = event["values"] as? [String: Any], let entry = values[key] else { return nil }
      let value = (entry as? [String: Any])?["value"] ?? entry
      return "\(value)"
    }
  }

  var transcript: String {
    let events = process.lines.filter { $0.contains("\"event\"") }.map { "< " + $0 }
    return (transcriptLines.withLock { $0 } + events).joined(separator: "\n")
  }
}
