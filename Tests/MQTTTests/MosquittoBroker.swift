import Foundation
import PatchbayTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A real `mosquitto` broker on a loopback port, with persistence in the test's directory.
/// The port is chosen from a range and the start retried when the broker says the address is
/// in use (no bind-0-close-reuse race); `restart` brings it back on the same port.
final class MosquittoBroker {
  static let executable = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  let directory: TemporaryDirectory
  private(set) var port: Int = 0
  private(set) var process: ChildProcess?
  let configPath: String

  /// Extra lines for the listener (TLS files, a password file); they replace `allow_anonymous true`
  /// when they mention allow_anonymous.
  let listenerOptions: String
  /// With a network: the broker runs in its namespace, listening on its veth address (and on
  /// loopback there, for clients on its side).
  let network: BrokerNetwork?
  /// Where clients in the test's namespace (the hub, mosquitto_pub) reach the broker.
  var address: String { network?.brokerAddress ?? "127.0.0.1" }

  init(directory: TemporaryDirectory, listenerOptions: String = "", network: BrokerNetwork? = nil) throws {
    self.directory = directory
    self.listenerOptions = listenerOptions
    self.network = network
    configPath = directory.path + "/mosquitto.conf"
    // Started as root, mosquitto drops to the `mosquitto` user: its persistence directory must
    // be writable for that user too, or the broker silently keeps sessions in memory only.
    try FileManager.default.createDirectory(
      atPath: directory.path + "/mosquitto", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path + "/mosquitto")
    for _ in 0..<30 {
      port = Int.random(in: 20_000...60_000)
      if try launch() { return }
    }
    throw TestSetupError("mosquitto found no free port in 30 tries")
  }

  /// Starts mosquitto on `port`; false when the port was taken.
  private func launch() throws -> Bool {
    guard let executable = Self.executable else {
      throw TestSetupError("mosquitto is not installed (scripts/bootstrap test installs it)")
    }
    try directory.write(
      "mosquitto.conf",
      """
      per_listener_settings false
      listener \(port) 127.0.0.1
      \(network.map { "listener \(port) \($0.brokerAddress)" } ?? "")
      \(listenerOptions.contains("allow_anonymous") ? "" : "allow_anonymous true")
      \(listenerOptions)
      persistence true
      persistence_location \(directory.path)/mosquitto/
      autosave_interval 1
      max_queued_messages 100000
      log_dest stderr
      log_type error
      log_type warning
      log_type notice
      log_type information

      """)
    let child = try helper(executable, ["-c", configPath])
    try eventually("mosquitto to start or fail; output:\n\(child.output)", within: 30) {
      child.output.contains(" running") || child.output.contains("Address already in use") || !child.isRunning
    }
    if child.output.contains(" running") && child.isRunning {
      // No persistence means a restart loses sessions: fail here rather than in a test.
      try? eventually("a persistence error", within: 0.2) { child.output.contains("Error saving") }
      if child.output.contains("Error saving") { throw TestSetupError("mosquitto cannot persist:\n\(child.output)") }
      process = child
      return true
    }
    _ = try? child.terminate(within: 10)
    if child.output.contains("Address already in use") { return false }
    throw TestSetupError("mosquitto did not start:\n\(child.output)")
  }

  /// Stops the broker (SIGTERM: it saves its persistence file) and starts it again on the same port.
  func restart() throws {
    try stop()
    for _ in 0..<100 {
      if try launch() { return }
      // The old socket may linger a moment; wait for the port by retrying the start.
      try? eventually("a moment", within: 0.2) { false }
    }
    throw TestSetupError("mosquitto did not come back on port \(port)")
  }

  func stop() throws {
    try process?.terminate(within: 30)
    process = nil
  }

  /// Publishes one message with mosquitto_pub.
  func publish(_ topic: String, _ payload: String, retain: Bool = false, qos: Int = 1) throws {
    var arguments = ["-h", address, "-p", String(port), "-q", String(qos), "-t", topic, "-m", payload]
    if retain { arguments.append("-r") }
    let child = try helperProcess("/usr/bin/mosquitto_pub", arguments)
    let status = try child.waitForExit(within: 30)
    if status != 0 { throw TestSetupError("mosquitto_pub \(topic) failed (\(status)): \(child.output)") }
  }

  /// Publishes raw bytes (not necessarily UTF-8) through a file, as `mosquitto_pub -f` reads it.
  func publish(_ topic: String, bytes: [UInt8], qos: Int = 1) throws {
    let file = directory.path + "/payload-\(UInt64.random(in: 0...UInt64.max)).bin"
    guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else {
      throw TestSetupError("cannot write \(file)")
    }
    let arguments = ["-h", address, "-p", String(port), "-q", String(qos), "-t", topic, "-f", file]
    let child = try helperProcess("/usr/bin/mosquitto_pub", arguments)
    let status = try child.waitForExit(within: 30)
    if status != 0 { throw TestSetupError("mosquitto_pub -f \(topic) failed (\(status)): \(child.output)") }
  }

  /// A mosquitto_sub on `filters`, ready (subscribed) when this returns. With a network it
  /// runs on the broker's side of it, so cutting the link leaves it connected.
  func subscribe(_ filters: [String], persistentID: String? = nil) throws -> Subscriber {
    try Subscriber(port: port, filters: filters, persistentID: persistentID, launch: helper)
  }

  /// A helper process, in the broker's namespace when there is one.
  private func helper(_ executable: String, _ arguments: [String]) throws -> ChildProcess {
    guard let network else { return try helperProcess(executable, arguments) }
    let (command, commandArguments) = network.command(executable, arguments)
    return try helperProcess(command, commandArguments)
  }

  deinit { _ = try? stop() }
}

/// `mosquitto_sub -d` printing each message as one line: "MSG <retain 0|1> <topic> <payload>".
final class Subscriber {
  let process: ChildProcess

  /// With `persistentID`, a persistent session (`-c -i ID`): it reconnects after a broker
  /// restart and gets what was queued for it meanwhile.
  init(
    port: Int, filters: [String], persistentID: String? = nil,
    launch: (String, [String]) throws -> ChildProcess = helperProcess
  ) throws {
    var arguments = ["-d", "-h", "127.0.0.1", "-p", String(port), "-q", "1", "-F", "MSG %r %t %p"]
    if let persistentID { arguments += ["-c", "-i", persistentID] }
    for filter in filters { arguments += ["-t", filter] }
    process = try launch("/usr/bin/mosquitto_sub", arguments)
    try process.waitForLine(containing: "received SUBACK", within: 30)
  }

  struct Message: Equatable, CustomStringConvertible {
    var retained: Bool
    var topic: String
    var payload: String
    var description: String { "\(retained ? "retained " : "")\(topic) \(payload)" }
  }

  /// Every message received so far, oldest first.
  var messages: [Message] {
    process.lines.compactMap { line in
      guard line.hasPrefix("MSG ") else { return nil }
      let parts = line.dropFirst(4).split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
      guard parts.count >= 2 else { return nil }
      return Message(
        retained: parts[0] == "1", topic: String(parts[1]), payload: parts.count > 2 ? String(parts[2]) : "")
    }
  }

  func payloads(on topic: String) -> [String] { messages.filter { $0.topic == topic }.map(\.payload) }

  deinit { _ = try? process.terminate(within: 10) }
}
