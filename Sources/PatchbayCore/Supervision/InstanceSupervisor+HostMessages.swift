import CPatchbayPlugin
import PatchbayValues
import PatchbayWire

#if canImport(Glibc)
  import Glibc
#endif

/// What the plugin's host says over the wire. Every message is untrusted: a port index past the
/// end, a type that does not fit, attributes that do not fit their port, counters at UInt64.max
/// (`InstanceCounters` saturates) and an unknown heartbeat are refused or harmless.
extension InstanceSupervisor {
  package func pluginChannel(_ process: any PluginChannel, received message: HostMessage) {
    handle(message, from: process, batch: nil)
  }

  /// One read's messages: the inputs their publishes route are sent per consumer together.
  package func pluginChannel(_ process: any PluginChannel, received messages: [HostMessage]) {
    // One message sends what it routes at once; a batch would only cost.
    guard messages.count > 1 else {
      for message in messages { handle(message, from: process, batch: nil) }
      return
    }
    let batch = DeliveryBatch()
    for message in messages { handle(message, from: process, batch: batch) }
    batch.flush()
  }

  private func handle(_ message: HostMessage, from process: any PluginChannel, batch: DeliveryBatch?) {
    switch message {
    case .hello(let version, _):
      if version != WireProtocol.version {
        logger.error("plugin host speaks wire protocol \(version), the hub \(WireProtocol.version)")
        process.signal(SIGKILL)
      }
    case .created(let info, let ports):
      created(info, ports: ports, by: process)
    case .started:
      started(process)
    case .publish(let index, let value, let hops):
      published(value, on: index, hops: hops, batch: batch)
    case .log(let level, let text):
      if restartLineAdmitted() { logger.log(level: Self.hubLogLevel(level), "\(text)") }
    case .heartbeat(let sequence):
      state.withLock { $0.heartbeat.answered(sequence) }
      heartbeatDeadlineChanged()
    case .failed(let stage, let status, let text):
      failed(stage, status: status, text)
    case .refusals(let total):
      state.change { $0.counters.refusals.report(total) }
    case .publishPressure(let busy, let waits):
      state.change {
        $0.counters.publishBusy.report(busy)
        $0.counters.publishWaits.report(waits)
      }
    case .confined(let abi, let network, let signals, let seccomp):
      state.change { $0.confinement = (Int(abi), network, signals, seccomp) }
    case .refusedCalls(let total):
      state.change { $0.counters.refusedCalls.report(total) }
    case .described, .stopped, .retired:
      break
    }
  }

  private func created(_ info: PluginInfo, ports declared: [PortDescriptor], by process: any PluginChannel) {
    var ports = declared
    for refusal in Self.dropUnfitAttributes(of: &ports) { logger.warning("\(refusal); attribute ignored") }
    let (hold, late) = state.change { state in
      // Created for the first time by a restart, after the hub (or a reload) stopped waiting.
      let late = !state.created && !state.holdStart
      // Routes interned against other ports would send values down the wrong routes.
      if state.ports != ports {
        state.outputRoutes = nil
        portsGeneration.add(1, ordering: .releasing)
      }
      state.ports = ports
      state.created = true
      return (state.holdStart || state.retired, late)
    }
    if restartLineAdmitted() {
      logger.info(
        "created: plugin \(info.name) \(info.version) (ABI \(info.abiMajor).\(info.abiMinor)), \(ports.count) ports")
    }
    // Late: the hub installs its routes first, then lets it start.
    if late {
      delegate.instanceCreatedLate(self)
    } else if !hold {
      sendControl(.start, to: process)
    }
  }

  private func started(_ process: any PluginChannel) {
    let now = clock.now
    state.change { state in
      state.phase = .running
      state.startedAt = now
      state.heartbeat.started(now: now)
    }
    heartbeatDeadlineChanged()
    if restartLineAdmitted() { logger.info("running (pid \(process.pid))") }
    inbox.open(replayingState: true)
  }

  private func published(_ value: Value, on index: UInt32, hops: UInt8, batch: DeliveryBatch?) {
    // Only what routing needs leaves the lock (copying the whole descriptor was a visible part
    // of a hop, issue 44).
    let found: (name: String, kind: PortKind, mirrors: String?, routes: [InternedRoute]?)? = state.withLock { state in
      let index = Int(index)
      guard state.ports.indices.contains(index), state.ports[index].direction == .output,
        state.ports[index].type == value.type
      else { return nil }
      InstanceCounters.bump(&state.counters.messagesOut)
      let routes = state.outputRoutes.flatMap { $0.indices.contains(index) ? $0[index] : nil }
      return (state.ports[index].name, state.ports[index].kind, state.ports[index].mirrors, routes)
    }
    guard let found else {
      logger.error("published on port \(index), which is not an output of that type; ignored")
      return
    }
    delegate.instance(
      self, published: value, on: found.name, kind: found.kind, routes: found.routes, hops: hops, batch: batch)
    // The device's own state of an input (ABI 1.2): a restarted process gets it, not an older command.
    if let mirrored = found.mirrors { inbox.follow(port: mirrored, value: value) }
  }

  private func failed(_ stage: LifecycleStage, status: Int32, _ text: String) {
    let verdict = stage == .fault ? "plugin gave up: \(text)" : "\(stage.name) failed: \(text)"
    if restartLineAdmitted() { logger.error("\(verdict)") }
    state.change {
      $0.lastExit = verdict
      $0.hostVerdict = verdict
    }
    if stage == .load {
      markFailed("\(text)")
    } else if stage == .create, status == PB_ERR_INVALID_CONFIG {
      // The plugin refused its config: the same config would be refused again.
      markFailed(
        "create() refused the config of [instances.\(spec.name)]: \(text); not retried until the config changes")
    }
  }

  /// The plugin host is not trusted: a status role or mirrored input that does not fit its port
  /// (which the host refuses in add_port) is dropped here too, with what was wrong.
  package static func dropUnfitAttributes(of ports: inout [PortDescriptor]) -> [String] {
    var refusals: [String] = []
    var peer: String?
    for index in ports.indices {
      let port = ports[index]
      if let mirrors = port.mirrors,
        !ports.contains(where: {
          $0.name == mirrors && $0.direction == .input && $0.kind == .state && $0.type == port.type
        }) || port.direction != .output
      {
        refusals.append("port '\(port.name)' cannot mirror '\(mirrors)'")
        ports[index].mirrors = nil
      }
      if let role = port.statusRole, !role.fits(port) || (role == .peer && peer != nil) {
        refusals.append("port '\(port.name)' cannot be shown in status as \(role)")
        ports[index].statusRole = nil
      } else if port.statusRole == .peer {
        peer = port.name
      }
    }
    return refusals
  }
}
