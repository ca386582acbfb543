import Foundation
import PatchbayCore
import PatchbayWire
import Synchronization

/// A removed instance's last run, in a plugin-host process of its own under the instance's
/// sandbox: load with its last config and state directory, `retire` instead of `start`, then
/// stop. The plugin gets `deadline` seconds for it.
final class InstanceRetirement: PluginChannelDelegate, Sendable {
  static let deadline = 60.0

  private let done = DispatchSemaphore(value: 0)
  private let outcome = Mutex<RetireOutcome?>(nil)
  /// What the plugin logged during `retire` (info and above; not what create() said again), for
  /// the hub's log; nil until then.
  private let lines = Mutex<[String]?>(nil)
  /// PB_ERR_NOT_SUPPORTED: nothing to retire.
  static let nothingToRetireStatus: Int32 = -8

  static let retirer: InstanceRetirer = { spec, library, stateDirectory, host in
    InstanceRetirement().run(spec, library: library, stateDirectory: stateDirectory, host: host)
  }

  private func run(_ spec: InstanceSpec, library: String, stateDirectory: String, host: String) -> RetireOutcome {
    let policy = SandboxPolicy(spec: spec, libraryPath: library, stateDirectory: stateDirectory)
    let process: PluginProcess
    do {
      // Parentheses: no instance is named so, so the marker never matches a running one.
      process = try PluginProcess.spawn(
        host: host, instance: "(retire \(spec.name))", arguments: policy.hostArguments, delegate: self)
    } catch {
      return .failed("cannot start the plugin host \(host): \(error)")
    }
    process.send(.hello(protocolVersion: WireProtocol.version))
    process.send(
      .load(
        LoadRequest(
          libraryPath: library, instanceName: spec.name, configJSON: spec.pluginConfig.description,
          stateDirectory: stateDirectory, logLevel: 2)))
    if done.wait(timeout: .now() + Self.deadline) == .timedOut {
      process.signal(SIGKILL)
      return .failed("the plugin did not retire within \(Int(Self.deadline)) s")
    }
    process.send(.stop)
    return outcome.withLock { $0 } ?? .failed("no answer")
  }

  private func finish(_ result: RetireOutcome) {
    let first = outcome.withLock { outcome -> Bool in
      guard outcome == nil else { return false }
      outcome = result
      return true
    }
    if first { done.signal() }
  }

  func pluginChannel(_ channel: any PluginChannel, received message: HostMessage) {
    switch message {
    case .created:
      lines.withLock { $0 = [] }
      channel.send(.retire)
    case .retired: finish(.retired(lines.withLock { $0 ?? [] }))
    case .failed(.retire, Self.nothingToRetireStatus, _): finish(.nothingToRetire)
    case .failed(let stage, _, let text): finish(.failed("\(stage.name): \(text)"))
    case .log(let level, let text) where level >= 2: lines.withLock { $0?.append(text) }
    default: break
    }
  }

  func pluginChannel(_ channel: any PluginChannel, exited reason: ExitReason) {
    finish(.failed("the plugin host \(reason)"))
  }
}
