import ChildProcesses
import Foundation
import PatchbayValues
import Synchronization

/// HAP-python 5.0.0 (Scripts/hap_python_accessory.py) as a real accessory server in its own process: a
/// bridge with a colour Lightbulb, a ContactSensor, a StatelessProgrammableSwitch and a
/// Switch on 127.0.0.1, driven one JSON command at a time.
public final class HAPPythonAccessory: Sendable {
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Scripts/hap_python_accessory.py").path
  /// Without the QR extra: its setup message would fill the output with a QR code.
  public static let requirements = ["HAP-python==5.0.0"]

  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// The running HAP-python (a new one after `restart`).
  public var process: ChildProcess { current.withLock { $0 } }
  private let current: Mutex<ChildProcess>
  private let arguments: [String]
  private let python: String
  public let port: Int
  /// HAP-python's device id (its pairing id).
  public let deviceID: String
  private let reservation: PortReservation
  private let directory: TemporaryDirectory

  private init(
    process: ChildProcess, python: String, arguments: [String], port: Int, deviceID: String,
    reservation: PortReservation, directory: TemporaryDirectory
  ) {
    current = Mutex(process)
    self.python = python
    self.arguments = arguments
    self.port = port
    self.deviceID = deviceID
    self.reservation = reservation
    self.directory = directory
  }

  /// `code`: the setup code, "XXX-XX-XXX".
  public static func start(code: String) async throws -> HAPPythonAccessory {
    try await offPool {
      let python = try PythonEnvironment.prepared(requirements)
      let directory = try TemporaryDirectory("hap-python")
      let reservation = try PortReservation()
      let arguments = [script, directory.path + "/accessory.state", code, String(reservation.port)]
      let process = try ChildProcess(python.python, arguments, keepInputOpen: true)
      let line = try process.waitForLine(containing: "\"ready\"", within: 120)
      guard let ready = JSONValue.parse(line.text)?["ready"], let port = ready["port"]?.integerValue,
        let deviceID = ready["mac"]?.stringValue
      else { throw Failure(description: "no port in \(line.text); output:\n\(process.output)") }
      return HAPPythonAccessory(
        process: process, python: python.python, arguments: arguments, port: port, deviceID: deviceID,
        reservation: reservation, directory: directory)
    }
  }

  /// Stops HAP-python and starts it again with the same state (pairings, ids) on the same port.
  public func stop() throws { _ = try process.terminate(within: 30) }

  public func startAgain() async throws {
    try await offPool { [self] in
      let process = try ChildProcess(python, arguments, keepInputOpen: true)
      _ = try process.waitForLine(containing: "\"ready\"", within: 120)
      current.withLock { $0 = process }
    }
  }

  deinit { _ = try? process.terminate(within: 10) }

  /// Sends `command` and returns its "ok" value, or throws its "error".
  @discardableResult
  public func send(_ command: [String: Any], within seconds: Double = 60) async throws -> JSONValue {
    let text = String(
      decoding: try JSONSerialization.data(withJSONObject: command, options: [.sortedKeys]), as: UTF8.self)
    return try await offPool { [self] in
      let before = process.lineCount
      try process.write(text + "\n")
      var answer: JSONValue?
      try eventually("an answer to \(text); output:\n\(process.output)", within: seconds) {
        answer = process.lines.dropFirst(before).lazy.compactMap(JSONValue.parse).first {
          $0["ok"] != nil || $0["error"] != nil
        }
        return answer != nil || !process.isRunning
      }
      guard let answer, let ok = answer["ok"] else {
        throw Failure(description: "\(text) failed; output:\n\(process.output)")
      }
      return ok
    }
  }

  /// What HAP-python's setters saw: `{"set": name, "value": v}` lines.
  public var setterCalls: [(name: String, value: JSONValue)] {
    process.lines.compactMap(JSONValue.parse).compactMap { line in
      guard let name = line["set"]?.stringValue, let value = line["value"] else { return nil }
      return (name, value)
    }
  }

  public func waitForSetter(
    _ name: String, within seconds: Double = 60, _ matches: @escaping @Sendable (JSONValue) -> Bool
  )
    async throws
  {
    try await offPool { [self] in
      try eventually("HAP-python's \(name) setter; output:\n\(process.output)", within: seconds) {
        setterCalls.contains { $0.name == name && matches($0.value) }
      }
    }
  }
}
