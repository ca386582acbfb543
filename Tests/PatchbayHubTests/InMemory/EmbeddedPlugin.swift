import Foundation
import PatchbayValues
import PatchbayWire

@testable import PatchbayCore

#if canImport(Glibc)
  import Glibc
#endif

/// One in-memory plugin instance on the hub's side of the wire protocol (like NIOEmbedded's
/// channel): it answers `hello`, `load`, `start`, heartbeats and `stop` as a plugin host does,
/// records its inputs, publishes when a test says so, and can crash or hang. Its answers reach
/// the supervisor on a serial queue of its own, as a host's reach it on its reader thread.
final class EmbeddedPlugin: PluginChannel {
  let pid: Int32
  let instance: String
  let ports: [PortDescriptor]
  private weak let delegate: (any PluginChannelDelegate)?
  private let world: EmbeddedPlugins
  private let reader: DispatchQueue
  private let life = Guarded(Life())

  private struct Life {
    var ended = false
    var hung = false
    /// Why the supervisor ended it, reported instead of the signal (as a real process's is).
    var verdict: ExitReason?
  }

  init(
    pid: Int32, instance: String, ports: [PortDescriptor], world: EmbeddedPlugins, delegate: any PluginChannelDelegate
  ) {
    self.pid = pid
    self.instance = instance
    self.ports = ports
    self.world = world
    self.delegate = delegate
    reader = DispatchQueue(label: "embedded-\(instance)-\(pid)")
  }

  // MARK: What the hub sends

  func send(_ message: HubMessage) -> Bool {
    if life.withLock({ $0.ended }) { return false }
    switch message {
    case .hello: answer(.hello(protocolVersion: WireProtocol.version, pid: pid))
    case .describe, .retire: break
    case .load:
      let info = PluginInfo(name: "embedded", version: "1.0", description: "in memory", abiMajor: 1, abiMinor: 0)
      answer(.created(info, ports: ports))
    case .start: answer(.started)
    case .input(let index, let value, _):
      // A consumer that is slowed down holds the sender here, as a full socket would.
      guard world.waitWhileSlow(instance, unless: { self.life.withLock { $0.ended } }) else { return false }
      world.record(instance: instance, port: ports[Int(index)].name, value: value)
    case .heartbeat(let sequence):
      if !life.withLock({ $0.hung }) { answer(.heartbeat(sequence: sequence)) }
    case .stop: end(.exited(code: 0))
    }
    return true
  }

  func trySend(_ message: HubMessage) -> PacketSocket.SendResult {
    if life.withLock({ $0.ended }) { return .closed }
    if case .input = message, world.isSlow(instance) { return .wouldBlock }
    return send(message) ? .sent : .closed
  }

  func signal(_ number: Int32) {
    if number == SIGTERM || number == SIGKILL { end(.signaled(number)) }
  }

  func markHung(seconds: Double) { life.withLock { $0.verdict = .hung(seconds: seconds) } }
  func terminate() { end(.signaled(SIGTERM)) }
  var inputLedger: (taken: UInt64, finished: UInt64)? { nil }
  var escapedDescendantsKilled: Int { 0 }

  // MARK: What a test makes the plugin do

  func publish(_ value: Value, on portName: String) {
    guard let index = ports.firstIndex(where: { $0.name == portName && $0.direction == .output }) else {
      preconditionFailure("\(instance) has no output \(portName)")
    }
    answer(.publish(port: UInt32(index), value: value))
  }

  /// Dies as a segfaulting plugin does: no goodbye, the supervisor hears of the exit.
  func crash() { end(.signaled(SIGSEGV)) }

  /// Stops answering heartbeats (create and inputs still work).
  func hang() { life.withLock { $0.hung = true } }

  /// Returns when the answers sent so far have reached the supervisor.
  func settle() { reader.sync {} }

  var hasEnded: Bool { life.withLock { $0.ended } }

  private func answer(_ message: HostMessage) {
    reader.async { [self] in
      guard !life.withLock({ $0.ended }) else { return }
      delegate?.pluginChannel(self, received: message)
    }
  }

  private func end(_ reason: ExitReason) {
    let (first, verdict) = life.change { life -> (Bool, ExitReason?) in
      defer { life.ended = true }
      return (!life.ended, life.verdict)
    }
    guard first else { return }
    let reason = verdict ?? reason
    world.wakeSlowSenders()
    // After the answers already on their way, as a host's reader drains before its waiter reports.
    reader.async { [self] in delegate?.pluginChannel(self, exited: reason) }
  }
}
