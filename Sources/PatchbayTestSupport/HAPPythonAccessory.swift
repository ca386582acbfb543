import ChildProcesses
import Foundation
import PatchbayValues
import Synchronization

/// HAP-python 5.0.0 (Scripts/hap_python_accessory.py) as a real accessory server in its own process: a
/// bridge with a colour Lightbulb, a ContactSensor, a StatelessProgrammableSwitch, a Switch and a
/// WindowCovering, driven one JSON command at a time. By default on 127.0.0.1 and not
/// advertised; `advertisedOn` an `AvahiUnderTest`, it runs as another host on that link (the
/// peer namespace) and advertises itself with its own zeroconf, as a real accessory does.
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
  private let python: String
  private let code: String
  /// The port it listens on now (another after `startAgain(port:)`).
  public var port: Int { listening.withLock { $0 } }
  private let listening: Mutex<Int>
  /// The address controllers reach it at.
  public let address: String
  /// HAP-python's device id (its pairing id).
  public let deviceID: String
  private let reservation: PortReservation?
  private let directory: TemporaryDirectory
  private let network: Network

  /// Where it runs: this host's loopback, or another host on an `AvahiUnderTest` link.
  enum Network: Sendable {
    case loopback
    case advertised(AvahiUnderTest)
  }

  private init(
    process: ChildProcess, python: String, code: String, port: Int, address: String, deviceID: String,
    reservation: PortReservation?, directory: TemporaryDirectory, network: Network
  ) {
    current = Mutex(process)
    self.python = python
    self.code = code
    listening = Mutex(port)
    self.address = address
    self.deviceID = deviceID
    self.reservation = reservation
    self.directory = directory
    self.network = network
  }

  /// `code`: the setup code, "XXX-XX-XXX". `advertisedOn`: run as another host on the link of
  /// that avahi-daemon, advertised by mDNS, listening on `port` (its namespace is private, so
  /// any port is free).
  public static func start(code: String, advertisedOn avahi: AvahiUnderTest? = nil, port: Int = 51830) async throws
    -> HAPPythonAccessory
  {
    try await offPool {
      let python = try PythonEnvironment.prepared(requirements)
      let directory = try TemporaryDirectory("hap-python")
      let reservation = avahi == nil ? try PortReservation() : nil
      let network: Network = avahi.map { .advertised($0) } ?? .loopback
      let address = avahi?.peerAddress ?? "127.0.0.1"
      let process = try launch(
        python.python, directory: directory, code: code, port: reservation?.port ?? port, address: address,
        network: network)
      // Importing HAP-python (cryptography, zeroconf) takes seconds idle, far more under load.
      let line = try process.waitForLine(containing: "\"ready\"", within: 300)
      guard let ready = JSONValue.parse(line.text)?["ready"], let port = ready["port"]?.integerValue,
        let deviceID = ready["mac"]?.stringValue
      else { throw Failure(description: "no port in \(line.text); output:\n\(process.output)") }
      return HAPPythonAccessory(
        process: process, python: python.python, code: code, port: port, address: address, deviceID: deviceID,
        reservation: reservation, directory: directory, network: network)
    }
  }

  private static func launch(
    _ python: String, directory: TemporaryDirectory, code: String, port: Int, address: String, network: Network
  ) throws -> ChildProcess {
    let arguments = [script, directory.path + "/accessory.state", code, String(port), address]
    switch network {
    case .loopback:
      return try ChildProcess(python, arguments + ["none"], keepInputOpen: true)
    case .advertised(let avahi):
      let (executable, wrapped) = avahi.inPeerNamespace(python, arguments + ["mdns"])
      return try ChildProcess(executable, wrapped, keepInputOpen: true)
    }
  }

  /// Stops HAP-python; `startAgain` starts it with the same state (pairings, ids).
  public func stop() throws { _ = try process.terminate(within: 30) }

  /// Starts HAP-python again with the same state, on the same port or on `port` (an accessory
  /// that moved: only mDNS tells where).
  public func startAgain(port newPort: Int? = nil) async throws {
    try await offPool { [self] in
      let process = try Self.launch(
        python, directory: directory, code: code, port: newPort ?? port, address: address, network: network)
      _ = try process.waitForLine(containing: "\"ready\"", within: 300)
      current.withLock { $0 = process }
      if let newPort { listening.withLock { $0 = newPort } }
    }
  }

  deinit { _ = try? process.terminate(within: 10) }

  /// Sends `command` and returns its "ok" value, or throws its "error". The deadline is generous:
  /// an answer takes milliseconds; only a missing one waits it out, and then the failure carries
  /// HAP-python's output (its log on stderr merged in).
  @discardableResult
  public func send(_ command: [String: Any], within seconds: Double = 300) async throws -> JSONValue {
    let text = String(
      decoding: try JSONSerialization.data(withJSONObject: command, options: [.sortedKeys]), as: UTF8.self)
    return try await offPool { [self] in
      let before = process.lineCount
      try process.write(text + "\n")
      var answer: JSONValue?
      try eventually("an answer to \(text); HAP-python's output (stderr merged):\n\(process.output)", within: seconds) {
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
    _ name: String, within seconds: Double = 120, _ matches: @escaping @Sendable (JSONValue) -> Bool
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
