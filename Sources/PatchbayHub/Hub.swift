import Foundation
import Logging
import PatchbayValues

/// The running hub: its instances under supervision, the routes between their ports, what
/// it remembers, and the watchers of `patchbay watch`.
public final class Hub: InstanceRuntimeDelegate, @unchecked Sendable {
  public internal(set) var config: HubConfig
  let locator: PluginLocator
  let store: HubStateStore
  let logger = Logger(label: "hub")
  private let lock = NSLock()
  /// Reloads run one at a time (SIGHUP and `patchbay reload` at once once launched an
  /// instance twice).
  private let reloading = NSLock()
  private var instances: [String: InstanceRuntime] = [:]
  private var routes = RouteTable()
  private var scenes: [String: CompiledScene] = [:]
  private var sceneActivations: [String: Int] = [:]
  private var routeDrops: [String: Int] = [:]
  private var routeErrors: [String] = []
  private var watchers: [UUID: Watcher] = [:]
  private let timers = DispatchQueue(label: "patchbay.route-timers")
  private var ticker: DispatchSourceTimer?
  private let startedAt = Date()

  struct Watcher {
    var pattern: String
    var emit: @Sendable (String) -> Bool
  }

  public init(config: HubConfig) {
    self.config = config
    locator = PluginLocator(configured: config.hub.pluginPath)
    store = HubStateStore(directory: config.hub.stateDirectory)
  }

  // MARK: Start and stop

  /// Starts every instance, checks routes against the ports they declare, then lets them run.
  /// Throws the route errors (and stops everything) when routes do not fit the ports.
  public func start() throws(ConfigErrors) {
    try? FileManager.default.createDirectory(atPath: config.hub.stateDirectory, withIntermediateDirectories: true)
    let runtimes = config.instances.map(makeRuntime)
    lock.withLock { for runtime in runtimes { instances[runtime.spec.name] = runtime } }
    // Heartbeats from the first moment: a create() that never returns is a hang too.
    startTicker()
    for runtime in runtimes { runtime.launch(holdStart: true) }
    waitUntilCreated(runtimes)
    do throws(ConfigErrors) {
      try installRoutes(config.routes, scenes: config.scenes)
    } catch {
      stop()
      throw error
    }
    for runtime in runtimes { runtime.release() }
    logger.info("hub started: \(runtimes.count) instances, \(routes.all.count) routes")
  }

  private func makeRuntime(_ spec: InstanceSpec) -> InstanceRuntime {
    let library = locator.library(for: spec.plugin)
    return InstanceRuntime(
      spec: spec, libraryPath: library, locator: locator, stateDirectory: config.hub.stateDirectory, delegate: self)
  }

  /// Waits (generously) until each instance declared its ports or failed: on each instance's
  /// own condition, not by polling.
  private func waitUntilCreated(_ runtimes: [InstanceRuntime]) {
    let deadline = Date().addingTimeInterval(60)
    for runtime in runtimes { runtime.waitUntilCreatedOrDown(until: deadline) }
  }

  /// Compiles routes. Routes whose instances could not start are skipped with an error (the
  /// rest of the hub runs); routes that do not fit the declared ports are config errors.
  private func installRoutes(_ specs: [RouteSpec], scenes sceneSpecs: [SceneSpec]) throws(ConfigErrors) {
    var catalog: PortCatalog = [:]
    var down: Set<String> = []
    for (name, runtime) in lock.withLock({ instances }) {
      let ports = runtime.declaredPorts
      if runtime.hasBeenCreated { catalog[name] = ports } else { down.insert(name) }
    }
    if !sceneSpecs.isEmpty { catalog[SceneSpec.instanceName] = SceneCompiler.ports(of: sceneSpecs) }
    var compiledScenes: [String: CompiledScene] = [:]
    var diagnostics: [ConfigDiagnostic] = []
    for spec in sceneSpecs {
      // A value for an instance that could not start is left out (logged); the rest works.
      var reachable = spec
      reachable.settings = spec.settings.filter { !down.contains($0.target.instance) }
      for (target, _) in spec.settings where down.contains(target.instance) {
        logger.error("\(spec.keyPath): \(target) is left out: instance '\(target.instance)' is not running")
      }
      switch SceneCompiler.compile(reachable, catalog: catalog) {
      case .success(let scene): compiledScenes[spec.name] = scene
      case .failure(let errors): diagnostics += errors.diagnostics
      }
    }
    var compiled: [CompiledRoute] = []
    var skipped: [String] = []
    for spec in specs {
      let involved = [spec.from.instance] + spec.targets.map(\.instance)
      if let missing = involved.first(where: { down.contains($0) }) {
        let message = "\(spec.keyPath) (\(spec.from) -> ...) is inactive: instance '\(missing)' is not running"
        logger.error("\(message)")
        skipped.append(message)
        continue
      }
      switch RouteCompiler.compile(spec, catalog: catalog) {
      case .success(let route): compiled.append(route)
      case .failure(let errors): diagnostics += errors.diagnostics
      }
    }
    guard diagnostics.isEmpty else { throw ConfigErrors(diagnostics) }
    lock.withLock {
      routes = RouteTable(compiled)
      routeErrors = skipped
      scenes = compiledScenes
    }
    replayRetained()
  }

  /// Gives every state input the retained value of the state output routed to it (a consumer
  /// that starts later, or after a hub restart, sees the current state at once).
  private func replayRetained() {
    let retained = store.retained()
    for route in lock.withLock({ routes.all }) {
      guard route.cycle == nil, !route.cyclesTargets, route.spec.momentary == nil,
        let value = retained[route.spec.from.description],
        lock.withLock({ instances[route.spec.from.instance] })?.port(named: route.spec.from.port)?.kind == .state
      else { continue }
      var position = HubStateStore.RoutePosition()
      if let output = RouteTransform.apply(route, to: value, position: &position) {
        deliver(output.value, to: output.targets, via: route)
      }
    }
  }

  /// Stops every instance in parallel (each: stop, SIGTERM, SIGKILL) and saves state.
  public func stop() {
    ticker?.cancel()
    let runtimes = lock.withLock { Array(instances.values) }
    DispatchQueue.concurrentPerform(iterations: runtimes.count) { index in runtimes[index].stop() }
    for runtime in runtimes { runtime.shutdown() }
    store.flush()
    logger.info("hub stopped")
  }

  private func startTicker() {
    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "patchbay.heartbeat"))
    timer.schedule(deadline: .now() + 0.1, repeating: 0.1)
    timer.setEventHandler { [weak self] in
      guard let self else { return }
      for runtime in self.lock.withLock({ Array(self.instances.values) }) { runtime.heartbeatTick() }
    }
    timer.resume()
    ticker = timer
  }

  // MARK: Values flowing

  func instance(_ instance: InstanceRuntime, published value: Value, on port: PortDescriptor) {
    route(value, from: PortAddress(instance: instance.spec.name, port: port.name), kind: port.kind, producer: instance)
  }

  /// A value appeared on an output: retain it (state), show it to watchers, send it down routes.
  func route(_ value: Value, from source: PortAddress, kind: PortKind, producer: InstanceRuntime? = nil) {
    if kind == .state { store.retain(value, for: source.description) }
    notifyWatchers("\(source) \(value)")
    for route in lock.withLock({ routes.routes(from: source) }) {
      if let condition = route.condition,
        !condition.holds(for: store.retainedValue(for: condition.source.description))
      {
        continue
      }
      var position = route.cycle != nil || route.cyclesTargets ? store.position(of: route.id) : .init()
      let before = position
      guard let output = RouteTransform.apply(route, to: value, position: &position) else { continue }
      // Delivered first: the position is written at once, but that waits for fsync (several
      // ms on a slow disk: most of a button-to-HomeKit press, docs/BENCHMARKS.md).
      deliver(output.value, to: output.targets, via: route, from: producer)
      if position != before { store.setPosition(position, of: route.id) }
      if let reset = route.momentaryReset {
        let targets = output.targets
        timers.asyncAfter(deadline: .now() + .milliseconds(route.momentaryDelayMs)) { [weak self] in
          self?.deliver(reset, to: targets, via: route)
        }
      }
    }
  }

  private func deliver(
    _ value: Value, to targets: [PortAddress], via route: CompiledRoute, from producer: InstanceRuntime? = nil
  ) {
    for target in targets {
      if target.instance == SceneSpec.instanceName {
        handOut(scene: target.port)
        continue
      }
      guard let runtime = lock.withLock({ instances[target.instance] }), let port = runtime.port(named: target.port)
      else { continue }
      if !runtime.deliver(value, to: port, from: producer) {
        let count = lock.withLock { () -> Int in
          routeDrops[route.id, default: 0] += 1
          return routeDrops[route.id]!
        }
        // Log the first drop and then every 100th, so a flood cannot flood the log too.
        if count == 1 || count % 100 == 0 {
          logger.warning("queue of \(target) is full: dropped \(count) events from route \(route.spec.keyPath)")
        }
      }
    }
  }

  // MARK: Operations for the control socket

  /// `patchbay send`: into an input port, a value for that instance; on an output port, a value
  /// routed as if the plugin had published it.
  public func send(_ text: String, to address: PortAddress) throws(ControlError) {
    if address.instance == SceneSpec.instanceName {
      try activate(scene: address.port)
      return
    }
    guard let runtime = lock.withLock({ instances[address.instance] }) else {
      let names = lock.withLock { Array(instances.keys) }
      throw ControlError("unknown instance '\(address.instance)'" + Suggestion.hint(for: address.instance, in: names))
    }
    guard let port = runtime.port(named: address.port) else {
      let names = runtime.declaredPorts.map(\.name)
      throw ControlError(
        "instance '\(address.instance)' has no port '\(address.port)'" + Suggestion.hint(for: address.port, in: names)
          + " (ports: \(names.joined(separator: ", ")))")
    }
    let value: Value
    do throws(ValueParseError) {
      value = try Value.parse(text, as: port.type)
    } catch {
      throw ControlError("\(address) takes \(port.type.name): \(error.description)")
    }
    if port.direction == .input {
      guard runtime.deliver(value, to: port) else { throw ControlError("the input queue of \(address) is full") }
    } else {
      route(value, from: address, kind: port.kind)
    }
  }

  /// Streams `INSTANCE.PORT VALUE` lines whose address matches `pattern` (a prefix, or `*`).
  public func watch(pattern: String, emit: @escaping @Sendable (String) -> Bool) -> UUID {
    let id = UUID()
    lock.withLock { watchers[id] = Watcher(pattern: pattern, emit: emit) }
    return id
  }

  public func unwatch(_ id: UUID) { _ = lock.withLock { watchers.removeValue(forKey: id) } }

  /// The line is only formatted when someone watches (formatting every value was a visible
  /// part of the hub's cost per message).
  private func notifyWatchers(_ text: @autoclosure () -> String) {
    let current = lock.withLock { watchers }
    guard !current.isEmpty else { return }
    let line = text()
    for (id, watcher) in current where Self.matches(line, pattern: watcher.pattern) {
      if !watcher.emit(line) { unwatch(id) }
    }
  }

  static func matches(_ line: String, pattern: String) -> Bool {
    if pattern.isEmpty || pattern == "*" { return true }
    if pattern.hasSuffix("*") { return line.hasPrefix(String(pattern.dropLast())) }
    return line.hasPrefix(pattern + " ") || line.hasPrefix(pattern + ".")
  }

  public func status() -> HubStatus {
    let (runtimes, drops, errors, routeCount) = lock.withLock {
      (Array(instances.values), routeDrops, routeErrors, routes.all.map { ($0.id, $0.spec.keyPath) })
    }
    let retained = store.retained()
    return HubStatus(
      version: HubVersion.current, pid: getpid(), uptimeSeconds: Date().timeIntervalSince(startedAt),
      instances: runtimes.map { runtime in
        var status = runtime.status()
        status.peer = Self.peer(of: status, retained: retained)
        status.nextTimes = Self.nextTimes(of: status, retained: retained)
        return status
      }.sorted { $0.name < $1.name },
      routes: routeCount.map { HubStatus.Route(id: $0.0, key: $0.1, drops: drops[$0.0] ?? 0) },
      inactiveRoutes: errors,
      scenes: lock.withLock {
        scenes.values.map {
          HubStatus.Scene(
            name: $0.spec.name, ports: $0.values.count, activations: sceneActivations[$0.spec.name] ?? 0)
        }
      }.sorted { $0.name < $1.name })
  }

  /// A plugin with a peer (flicd, Homebridge, a broker) says whether it reaches it on a
  /// `connected` bool state output; shown only while the instance runs (the retained value
  /// of a stopped instance is history).
  static func peer(of status: InstanceStatus, retained: [String: Value]) -> String? {
    guard
      status.ports.contains(where: {
        $0.name == "connected" && $0.direction == .output && $0.type == .bool && $0.kind == .state
      })
    else { return nil }
    guard status.phase == .running, case .bool(let up)? = retained["\(status.name).connected"] else {
      return "-"
    }
    return up ? "connected" : "disconnected"
  }

  // MARK: Scenes

  /// `patchbay scene NAME` and `patchbay send scene.NAME`: refused for an unknown scene.
  public func activate(scene name: String) throws(ControlError) {
    guard lock.withLock({ scenes[name] }) != nil else {
      let names = lock.withLock { Array(scenes.keys) }.sorted()
      throw ControlError(
        "unknown scene '\(name)'" + Suggestion.hint(for: name, in: names)
          + " (scenes: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
    }
    handOut(scene: name)
  }

  /// Hands every value of the scene to its port at once (state inputs keep only the newest,
  /// events queue in order; an instance that is down gets them when it is back), then
  /// publishes `scene.NAME.activated`.
  private func handOut(scene name: String) {
    guard
      let scene = lock.withLock({ () -> CompiledScene? in
        sceneActivations[name, default: 0] += 1
        return scenes[name]
      })
    else { return }
    var waiting: [String] = []
    var dropped: [String] = []
    for (target, port, value) in scene.values {
      guard let runtime = lock.withLock({ instances[target.instance] }) else { continue }
      if runtime.currentPhase != .running { waiting.append(target.description) }
      if !runtime.deliver(value, to: port) { dropped.append(target.description) }
    }
    var note = "scene \(name): \(scene.values.count) values handed out"
    if !waiting.isEmpty {
      note += "; \(waiting.count) wait for instances that are not running (\(waiting.joined(separator: ", ")))"
    }
    if !dropped.isEmpty { note += "; \(dropped.count) dropped, queue full (\(dropped.joined(separator: ", ")))" }
    logger.notice("\(note)")
    route(.trigger, from: PortAddress(instance: SceneSpec.instanceName, port: name + ".activated"), kind: .event)
  }

  /// A schedule says when each trigger fires next on `next.NAME` text state outputs.
  static func nextTimes(of status: InstanceStatus, retained: [String: Value]) -> [String: String]? {
    guard status.phase == .running else { return nil }
    var times: [String: String] = [:]
    for port in status.ports
    where port.direction == .output && port.kind == .state && port.type == .text && port.name.hasPrefix("next.") {
      if case .text(let text)? = retained["\(status.name).\(port.name)"], !text.isEmpty {
        times[String(port.name.dropFirst("next.".count))] = text
      }
    }
    return times.isEmpty ? nil : times
  }

  /// `patchbay restart INSTANCE`.
  public func restart(instance name: String) throws(ControlError) {
    guard let runtime = lock.withLock({ instances[name] }) else {
      throw ControlError(
        "unknown instance '\(name)'" + Suggestion.hint(for: name, in: lock.withLock { Array(instances.keys) }))
    }
    DispatchQueue.global().async { runtime.restartNow() }
  }

  public func pid(of instance: String) -> Int32? { lock.withLock { instances[instance] }?.pid }

  /// The reload itself, after the new config passed `check`.
  func applyReload(_ newConfig: HubConfig) -> ReloadSummary {
    reloading.withLock { applyReloadSerially(newConfig) }
  }

  private func applyReloadSerially(_ newConfig: HubConfig) -> ReloadSummary {
    let current = lock.withLock { instances }
    let wanted = Dictionary(uniqueKeysWithValues: newConfig.instances.map { ($0.name, $0) })
    var summary = ReloadSummary(started: [], stopped: [], restarted: [], unchanged: [])
    var retiring: [InstanceRuntime] = []
    var launching: [InstanceRuntime] = []
    for (name, runtime) in current {
      guard let spec = wanted[name] else {
        retiring.append(runtime)
        summary.stopped.append(name)
        continue
      }
      if spec.identity == runtime.spec.identity {
        summary.unchanged.append(name)
      } else {
        retiring.append(runtime)
        launching.append(makeRuntime(spec))
        summary.restarted.append(name)
      }
    }
    for spec in newConfig.instances where current[spec.name] == nil {
      launching.append(makeRuntime(spec))
      summary.started.append(spec.name)
    }
    lock.withLock { config = newConfig }
    let toStop = retiring
    DispatchQueue.concurrentPerform(iterations: toStop.count) { toStop[$0].stop() }
    lock.withLock {
      for runtime in retiring {
        runtime.shutdown()
        instances.removeValue(forKey: runtime.spec.name)
      }
      for runtime in launching { instances[runtime.spec.name] = runtime }
    }
    for runtime in launching { runtime.launch(holdStart: true) }
    waitUntilCreated(launching)
    do throws(ConfigErrors) {
      try installRoutes(newConfig.routes, scenes: newConfig.scenes)
    } catch {
      // check() passed, so only a plugin that changed its mind about its ports gets here.
      logger.error("routes after reload: \(error)")
    }
    for runtime in launching { runtime.release() }
    summary.started.sort()
    summary.stopped.sort()
    summary.restarted.sort()
    summary.unchanged.sort()
    logger.notice("reloaded: \(summary)")
    return summary
  }
}

/// A refused control request, with a message for the user.
public struct ControlError: Error, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

// Read access to the installed routes for HubIntrospection.swift (private state lives in this file).
extension Hub {
  func installedRoutes() -> [CompiledRoute] { lock.withLock { routes.all } }
}
