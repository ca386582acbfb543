import Foundation
import PatchbayCore
import PatchbayValues
import PatchbayWire
import Synchronization

/// Asks a plugin, inside its own plugin-host process, what it is (describe) or which ports an
/// instance config gives it (create, then stop) — so a broken library or config cannot crash
/// the caller.
final class PortProbe: PluginChannelDelegate, Sendable {
  enum Outcome: Sendable {
    case described(PluginInfo)
    /// With the warnings the plugin logged while it was created (`patchbay check` shows them).
    case created(PluginInfo, [PortDescriptor], warnings: [String])
    /// The library's descriptor names another plugin than the one it was found as.
    case misnamed(String)
    case failed(String)
  }

  private let done = DispatchSemaphore(value: 0)
  /// The first answer, and the warnings the plugin logged on the way (for a failure).
  private let answer = Mutex<(outcome: Outcome?, logLines: [String])>((nil, []))

  static func describe(library: String, locator: PluginLocator) -> Outcome {
    PortProbe().run(.describe(libraryPath: library), locator: locator)
  }

  static func create(_ spec: InstanceSpec, library: String, locator: PluginLocator, stateDirectory: String) -> Outcome {
    let request = LoadRequest(
      libraryPath: library, instanceName: spec.name, configJSON: spec.pluginConfig.description,
      stateDirectory: stateDirectory, logLevel: 4)
    // Under the instance's sandbox: a config that reads what it was not given fails here too.
    let policy = SandboxPolicy(spec: spec, libraryPath: library, stateDirectory: stateDirectory)
    policy.createMissingOutputs()
    return PortProbe().run(.load(request), locator: locator, arguments: policy.hostArguments)
  }

  private func run(_ request: HubMessage, locator: PluginLocator, arguments: [String] = []) -> Outcome {
    let process: any PluginChannel
    do {
      // No instance name has parentheses: the marker never matches a running instance, nor
      // another probe (a probe's end must not sweep a concurrent one away).
      process = try PluginProcess.spawn(
        host: locator.hostExecutable, instance: "(probe \(UInt64.random(in: 0...UInt64.max)))", arguments: arguments,
        delegate: self)
    } catch {
      return .failed("cannot start the plugin host \(locator.hostExecutable): \(error)")
    }
    process.send(.hello(protocolVersion: WireProtocol.version))
    process.send(request)
    if done.wait(timeout: .now() + 30) == .timedOut {
      process.signal(SIGKILL)
      return .failed("the plugin did not answer within 30 s")
    }
    process.send(.stop)
    return answer.withLock { $0.outcome } ?? .failed("no answer")
  }

  private func finish(_ result: Outcome) {
    let first = answer.withLock { answer -> Bool in
      guard answer.outcome == nil else { return false }
      answer.outcome = result
      return true
    }
    if first { done.signal() }
  }

  func pluginChannel(_ process: any PluginChannel, received message: HostMessage) {
    switch message {
    case .described(let info): finish(.described(info))
    case .created(let info, let ports): finish(.created(info, ports, warnings: answer.withLock { $0.logLines }))
    case .failed(.load, PluginFileName.mismatchStatus, let text): finish(.misnamed(text))
    case .failed(_, _, let text): finish(.failed(text))
    case .log(let level, let text) where level >= 4:
      answer.withLock { if $0.outcome == nil { $0.logLines.append(text) } }
    default: break
    }
  }

  func pluginChannel(_ process: any PluginChannel, exited reason: ExitReason) {
    let lines = answer.withLock { $0.logLines }
    let detail = lines.isEmpty ? "" : ": " + lines.joined(separator: "; ")
    finish(.failed("the plugin host \(reason)\(detail)"))
  }
}

#if canImport(Glibc)
  import Glibc
#endif
