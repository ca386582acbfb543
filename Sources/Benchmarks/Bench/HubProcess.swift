import ChildProcesses
import Foundation
import PatchbayHub

/// `patchbay run` with a benchmark's config, in its own directory, spoken to through its
/// control socket like `patchbay status` and `patchbay send` do.
final class HubProcess {
  let directory: String
  let process: ChildProcess
  var socket: String { directory + "/control.sock" }
  var pid: Int32 { process.pid }
  /// `[instances.NAME]` sections in the config: the control socket answers before the hub has
  /// registered them, so "every instance runs" needs the count.
  let expectedInstances: Int

  /// Writes `config` (after the common `[hub]` section) and starts the hub; `wrapper` runs it
  /// under another program (valgrind), with `environment` added.
  init(
    tools: BenchTools, directory: String, config: String, wrapper: [String] = [], hub: String? = nil,
    environment: [String: String] = [:]
  ) throws {
    self.directory = directory
    // `[instances.NAME]`, not its sub-tables (`[instances.NAME.sandbox]`).
    expectedInstances =
      config.split(separator: "\n").filter {
        $0.hasPrefix("[instances.") && !$0.dropFirst("[instances.".count).contains(".")
      }.count
    let file = directory + "/patchbay.toml"
    try (tools.hubSection(directory: directory) + config).write(toFile: file, atomically: false, encoding: .utf8)
    let command = wrapper + [hub ?? tools.patchbay, "run", "--config", file]
    process = try ChildProcess(
      command[0], Array(command.dropFirst()), environment: environment, standardError: .file(directory + "/hub.log"))
  }

  /// The hub's log so far (standard error).
  var log: String { (try? String(contentsOfFile: directory + "/hub.log", encoding: .utf8)) ?? "" }

  /// The hub's answer to `status`, or nil while its control socket is not up yet.
  func status() -> HubStatus? {
    try? ControlClient.request(ControlRequest(command: .status), socket: socket).status
  }

  /// Waits until every instance is running; returns the status that showed it.
  @discardableResult
  func waitUntilRunning(within seconds: Double = 60, interval: UInt32 = 2000) throws -> HubStatus {
    var last: HubStatus?
    try waitFor("every instance of the hub in \(directory) to run", within: seconds, interval: interval) {
      guard process.isRunning else { return true }
      last = status()
      return last.map {
        $0.instances.count >= expectedInstances && $0.instances.allSatisfy { $0.phase == .running }
      } ?? false
    }
    guard process.isRunning, let last else {
      throw BenchError("the hub in \(directory) ended; see \(directory)/hub.log")
    }
    return last
  }

  /// `patchbay send ADDRESS VALUE`.
  func send(_ address: String, _ value: String) throws {
    let response = try ControlClient.request(
      ControlRequest(command: .send, address: address, value: value), socket: socket)
    guard response.ok else { throw BenchError("send \(address) \(value): \(response.message ?? "refused")") }
  }

  func pid(of instance: String) -> Int32? { status()?.instances.first { $0.name == instance }?.pid }

  func stop() { _ = try? process.terminate(within: 10) }
}
