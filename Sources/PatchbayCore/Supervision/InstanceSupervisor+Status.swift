import Logging
import PatchbayValues

/// What `status`, the CLI and the web page read of an instance.
extension InstanceSupervisor {
  package var declaredPorts: [PortDescriptor] { state.withLock { $0.ports } }
  package var hasBeenCreated: Bool { state.withLock { $0.created } }
  package var currentPhase: InstancePhase { state.withLock { $0.phase } }
  package var pid: Int32? { state.withLock { $0.process?.pid } }

  package func port(named name: String) -> PortDescriptor? { state.withLock { $0.ports.first { $0.name == name } } }

  /// The input `name` as delivery sends it: with its index among the ports declared now (see
  /// `InputPort`); a port of that name that is no input keeps no index (it is refused when sent).
  package func inputPort(named name: String) -> InputPort? {
    state.withLock { state in
      let generation = portsGeneration.load(ordering: .relaxed)
      if let index = state.ports.firstIndex(where: { $0.name == name && $0.direction == .input }) {
        return InputPort(name: name, kind: state.ports[index].kind, index: index, generation: generation)
      }
      return state.ports.first { $0.name == name }.map(InputPort.init)
    }
  }

  package func status() -> InstanceStatus {
    let depth = inbox.depth
    let now = clock.now
    return state.withLock { state in
      let counters = state.counters
      return InstanceStatus(
        name: spec.name, plugin: spec.plugin, phase: state.phase, pid: state.process?.pid,
        uptimeSeconds: state.startedAt.map { now - $0 }, restarts: counters.restarts,
        messagesIn: counters.messagesIn, messagesOut: counters.messagesOut, queueDepth: depth, drops: counters.drops,
        refusals: counters.refusals.total, backPressureWaits: counters.backPressureWaits,
        publishBusy: counters.publishBusy.total, publishWaits: counters.publishWaits.total, peer: nil,
        lastExit: state.lastExit, failure: state.failure, failedSince: state.failedSince, ports: state.ports,
        controlRefusals: counters.controlRefusals == 0 ? nil : counters.controlRefusals,
        containment: state.process?.containment,
        sandbox: state.sandboxPolicy.map { policy in
          SandboxStatus(
            policy: policy, landlockABI: state.confinement?.abi, networkConfined: state.confinement?.network ?? false,
            signalsScoped: state.confinement?.signals ?? false, seccomp: state.confinement?.seccomp ?? false,
            refusedCalls: counters.refusedCalls.total)
        })
    }
  }

  /// The control server refused a connection from `peer`, this instance's process or one it
  /// started. Logged at most once a minute (a plugin may try in a loop), counted always.
  package func noteControlRefusal(peer: Int32) {
    let now = clock.now
    let count: Int? = state.withLock { state in
      InstanceCounters.bump(&state.counters.controlRefusals)
      if let logged = state.controlRefusalLoggedAt, now - logged < 60 { return nil }
      state.controlRefusalLoggedAt = now
      return state.counters.controlRefusals
    }
    guard let count else { return }
    let message = "refused a control connection from process \(peer) of this instance: the control socket"
    logger.warning("\(message) is not a plugin's (\(count) refused so far)")
  }

  package static func pluginLogLevel(_ level: String) -> UInt8 {
    switch level {
    case "trace": 0
    case "debug": 1
    case "info": 2
    case "notice": 3
    case "warning": 4
    default: 5
    }
  }

  package static func hubLogLevel(_ level: UInt8) -> Logger.Level {
    switch level {
    case 0: .trace
    case 1: .debug
    case 2: .info
    case 3: .notice
    case 4: .warning
    default: .error
    }
  }
}
