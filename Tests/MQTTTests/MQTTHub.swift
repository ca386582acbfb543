import Foundation
import PatchbayHub
import PatchbayTestSupport
import PatchbayValues

/// `patchbay run` with one mqtt instance (named `name`, default `mqtt`) whose config body the
/// test gives, plus whatever other sections it needs; `watch` follows its ports.
final class MQTTHub {
  let directory: TemporaryDirectory
  let process: ChildProcess
  let configPath: String
  let name: String
  var socketPath: String { directory.path + "/\(name)-control.sock" }

  init(directory: TemporaryDirectory, name: String = "mqtt", mqtt: String, extra: String = "") throws {
    self.directory = directory
    self.name = name
    configPath = try directory.write(
      "\(name)-patchbay.toml",
      """
      [hub]
      state_directory = "\(directory.path)/\(name)-state"
      control_socket = "\(directory.path)/\(name)-control.sock"

      [instances.\(name)]
      plugin = "mqtt"
      log_level = "debug"
      \(mqtt)

      # For tests: a message here shows that a watch is following the ports.
      [[instances.\(name).topics]]
      name = "ping"
      type = "integer"
      kind = "event"
      subscribe = "test/ping/\(name)"

      \(extra)
      """)
    process = try ChildProcess(BuildProducts.executable("patchbay"), ["run", "--config", configPath])
    try process.waitForLine(containing: "hub started", within: 60)
  }

  /// Sends a value into an input port through the control socket (what `patchbay send` does).
  func send(_ address: String, _ value: String) throws {
    let response = try ControlClient.request(
      ControlRequest(command: .send, address: address, value: value), socket: socketPath)
    if !response.ok { throw TestSetupError("send \(address): \(response.message ?? "refused")") }
  }

  /// `patchbay watch` on `pattern`: one "INSTANCE.PORT VALUE" line per published value.
  func watch(_ pattern: String) throws -> Watcher {
    try Watcher(
      ChildProcess(BuildProducts.executable("patchbay"), ["watch", "--config", configPath, pattern]))
  }

  /// `patchbay watch` on `pattern`, returned once it follows the instance's ports: pings
  /// through the broker until one shows up (the hub does not replay values to a new watch).
  func watchReady(_ pattern: String = "*", broker: MosquittoBroker) throws -> Watcher {
    let watcher = try watch(pattern)
    var ping = 0
    try eventually("a ping through the watch; output:\n\(watcher.process.output)", within: 60, pollEvery: 0.3) {
      ping += 1
      try broker.publish("test/ping/\(name)", String(ping))
      return !watcher.values("\(name).ping").isEmpty
    }
    return watcher
  }

  /// Waits until the instance says it is connected to the broker.
  func waitConnected(within seconds: Double = 60) throws {
    try process.waitForLine(containing: "connected to 127.0.0.1:", within: seconds)
  }

  deinit { _ = try? process.terminate(within: 30) }
}

/// A running `patchbay watch`.
final class Watcher {
  let process: ChildProcess
  init(_ process: ChildProcess) { self.process = process }

  /// The values printed for `address` ("mqtt.kitchen.temperature"), oldest first, as JSON.
  func values(_ address: String) -> [JSONValue] {
    process.lines.compactMap { line in
      guard line.hasPrefix(address + " ") else { return nil }
      let text = String(line.dropFirst(address.count + 1))
      return JSONValue.parse(text) ?? .string(text)
    }
  }

  deinit { _ = try? process.terminate(within: 10) }
}
