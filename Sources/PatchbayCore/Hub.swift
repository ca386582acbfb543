import Foundation
import Logging
import PatchbayValues
import Synchronization

/// The running hub: its instances under supervision, the routes between their ports, what
/// it remembers, and the watchers of `patchbay watch`. Its tables have one owner, `tables` (a
/// mutex: routing threads read them on every value, briefly; nothing blocks while holding it).
public final class Hub: InstanceSupervisorDelegate, Sendable {
  package let locator: PluginLocator
  package let store: HubStateStore
  package let logger = Logger(label: "hub")
  package let tables: Mutex<Tables>
  /// Counts changes of `tables.instances` (made under its lock): routes interned to the
  /// supervisors of one version look them up by name once it has moved on (`InternedRoute`).
  package let instancesVersion = Atomic(0)
  /// Reloads run one at a time (SIGHUP and `patchbay reload` at once once launched an
  /// instance twice).
  package let reloading = Mutex(())
  /// Back-off, heartbeats, hang detection and momentary routes run on it (tests move it by hand).
  package let clock: any HubClock
  /// How many `watch` streams are open (changed under `tables`' lock): with none, a routed
  /// value does not take that lock at all.
  private let watching = Atomic(0)
  /// The heartbeat ticker runs while this is true.
  private let ticking = Atomic(false)
  /// When the ticker wakes next; see `planTick`.
  private let tickPlan = Mutex(TickPlan())
  /// Ticks never overlap (a wake planned earlier by a supervisor may meet one in progress).
  private let tickInProgress = Mutex(())
  /// `stop` has begun: a `start` still waiting for its instances gives up.
  private let stopping = Atomic(false)
  private let startedAt = Date()
  private let launcher: PluginLauncher
  /// Runs a removed instance's plugin once more to undo what it left outside the hub (nil:
  /// the core's in-memory tests, which have no such plugins).
  package let retirer: InstanceRetirer?
  /// One retirement pass at a time (a reload right after a start finds the first still going).
  package let retiring = Atomic(false)
  /// Run once a second on the ticker: the process hub reaps the children it inherited there.
  private let housekeeping: (@Sendable () -> Void)?

  /// The ticker's one pending wake-up. The clock cannot cancel a timer: a wake planned earlier
  /// supersedes the pending one, which then finds its generation stale and does nothing.
  private struct TickPlan {
    var at: Double?
    var generation = 0
    var nextHousekeeping = 0.0
  }

  package struct Tables {
    var config: HubConfig
    var instances: [String: InstanceSupervisor] = [:]
    var routes = RouteTable()
    var scenes: [String: CompiledScene] = [:]
    var sceneActivations: [String: Int] = [:]
    var routeErrors: [String] = []
    var watchers: [UUID: Watcher] = [:]
  }

  package struct Watcher {
    var pattern: String
    var emit: @Sendable (String) -> Bool
  }

  /// The config the hub runs (the newest reloaded one).
  public var config: HubConfig { tables.withLock { $0.config } }

  /// A hub whose instances run on the channels `launcher` starts: plugin-host processes
  /// (`PatchbayHub`), or in memory (the core's tests).
  /// `storage` keeps what the hub remembers (a file under the state directory in `PatchbayHub`).
  package init(
    config: HubConfig, launcher: @escaping PluginLauncher, storage: any HubStateStorage,
    clock: any HubClock = SystemClock(), retirer: InstanceRetirer? = nil,
    housekeeping: (@Sendable () -> Void)? = nil
  ) {
    self.housekeeping = housekeeping
    self.launcher = launcher
    self.retirer = retirer
    self.clock = clock
    tables = Mutex(Tables(config: config))
    locator = PluginLocator(configured: config.hub.pluginPath)
    store = HubStateStore(storage: storage, clock: clock)
  }

  package var instances: [String: InstanceSupervisor] { tables.withLock { $0.instances } }
  package func instance(named name: String) -> InstanceSupervisor? { tables.withLock { $0.instances[name] } }

  // MARK: Start and stop

  /// Starts every instance, checks routes against the ports they declare, then lets them run.
  /// Throws the route errors (and stops everything) when routes do not fit the ports.
  public func start() throws(ConfigErrors) {
    let supervisors = config.instances.map(makeSupervisor)
    tables.withLock { tables in
      for supervisor in supervisors { tables.instances[supervisor.spec.name] = supervisor }
      instancesVersion.add(1, ordering: .releasing)
    }
    if stopping.load(ordering: .sequentiallyConsistent) { return }
    // Heartbeats from the first moment: a create() that never returns is a hang too.
    startTicker()
    for supervisor in supervisors { supervisor.launch(holdStart: true) }
    waitUntilCreated(supervisors)
    // Stopped while starting (SIGTERM): `stop` retired every instance; nothing more to do.
    if stopping.load(ordering: .sequentiallyConsistent) { return }
    do throws(ConfigErrors) {
      try installRoutes(config.routes, scenes: config.scenes)
    } catch {
      stop()
      throw error
    }
    pruneRetainedValues()
    for supervisor in supervisors { supervisor.allowStart() }
    logger.info("hub started: \(supervisors.count) instances, \(installedRoutes().count) routes")
    retireRemovedInstances()
  }

  package func makeSupervisor(_ spec: InstanceSpec) -> InstanceSupervisor {
    let library = locator.library(for: spec.plugin)
    return InstanceSupervisor(
      spec: spec, libraryPath: library, locator: locator, stateDirectory: config.hub.stateDirectory, delegate: self,
      clock: clock, launcher: launcher)
  }

  /// How long the others wait for an instance's create() before they start without it: a
  /// plugin that hangs in create() would otherwise hold every instance until its hang timeout.
  /// The late one gets its routes, then its start, once it has declared its ports.
  package static let createGrace: TimeInterval = 5

  /// Waits until each instance declared its ports or failed, at most `createGrace`: on each
  /// instance's own condition, not by polling.
  package func waitUntilCreated(_ supervisors: [InstanceSupervisor]) {
    let deadline = Date().addingTimeInterval(Self.createGrace)
    for supervisor in supervisors { supervisor.waitUntilCreatedOrDown(until: deadline) }
  }

  /// Stops every instance in parallel (each: stop, SIGTERM, SIGKILL, by their deadlines) for
  /// good and saves state. It may run while `start` still waits for instances (SIGTERM while
  /// starting): `start` then ends at once and starts nothing.
  public func stop() {
    stopping.store(true, ordering: .sequentiallyConsistent)
    ticking.store(false, ordering: .relaxed)
    let supervisors = Array(instances.values)
    DispatchQueue.concurrentPerform(iterations: supervisors.count) { index in supervisors[index].retire() }
    for supervisor in supervisors { supervisor.shutdown() }
    store.flush()
    logger.info("hub stopped")
  }

  /// SIGTERM while `start` waits for instances: it stops waiting and starts nothing (nothing
  /// launches any more); `stop` then ends every instance by its deadlines. Does not block.
  public func abandonStart() {
    stopping.store(true, ordering: .sequentiallyConsistent)
    for supervisor in instances.values { supervisor.markRetired() }
  }

  /// Whether `stop` or `abandonStart` was called.
  public var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

  /// An instance that could not start with the hub (its first attempt failed, or its create()
  /// took longer than `createGrace`) has declared its ports: its routes and scene values,
  /// inactive until now, are installed, and then it starts (so that nothing it publishes at
  /// start is lost for want of a route).
  package func instanceCreatedLate(_ instance: InstanceSupervisor) {
    DispatchQueue.global().async { [self] in
      defer { instance.allowStart() }
      reloading.withLock { _ in
        guard self.instance(named: instance.spec.name) === instance, !isStopping else { return }
        let config = config
        do throws(ConfigErrors) {
          try installRoutes(config.routes, scenes: config.scenes)
          logger.info("'\(instance.spec.name)' runs now: routes installed again")
        } catch {
          logger.error("routes after '\(instance.spec.name)' started late: \(error)")
        }
      }
    }
  }

  /// The ticker: each instance's supervisor sends or checks its heartbeat when one is due, and
  /// housekeeping runs once a second. It sleeps until the earliest of those deadlines (it once
  /// woke every 0.1 s, which was most of an idle hub's CPU time); a supervisor whose deadline
  /// moves earlier outside a tick says so (`instanceTickDueChanged`).
  private func startTicker() {
    ticking.store(true, ordering: .relaxed)
    let now = clock.now
    tickPlan.withLock { $0.nextHousekeeping = now + Self.housekeepingInterval }
    planTick(at: nextTickDue(now: now))
  }

  private func tick(generation: Int) {
    guard ticking.load(ordering: .relaxed) else { return }
    let current = tickPlan.withLock { plan in
      guard plan.generation == generation else { return false }
      plan.at = nil
      return true
    }
    guard current else { return }
    tickInProgress.withLock { _ in
      for supervisor in instances.values { supervisor.heartbeatTick() }
      guard let housekeeping else { return }
      let now = clock.now
      let due = tickPlan.withLock { plan in
        guard now >= plan.nextHousekeeping else { return false }
        plan.nextHousekeeping = now + Self.housekeepingInterval
        return true
      }
      if due { housekeeping() }
    }
    planTick(at: nextTickDue(now: clock.now))
  }

  /// The earliest deadline of any instance, or of housekeeping; nil when nothing is due.
  private func nextTickDue(now: Double) -> Double? {
    var due = housekeeping == nil ? nil : tickPlan.withLock { $0.nextHousekeeping }
    for supervisor in instances.values {
      if let next = supervisor.nextTickDue(now: now) { due = min(due ?? next, next) }
    }
    return due
  }

  /// Wakes the ticker at `due` unless it wakes earlier anyway. A deadline already reached is
  /// ticked a moment later (the hang check is "longer than the timeout").
  private func planTick(at due: Double?) {
    guard let due, ticking.load(ordering: .relaxed) else { return }
    let generation: Int? = tickPlan.withLock { plan in
      if let at = plan.at, at <= due { return nil }
      plan.generation += 1
      plan.at = due
      return plan.generation
    }
    guard let generation else { return }
    // No weak self (a side table makes every retain of the hub slow, issue 44): a stopped hub's
    // tick does nothing.
    clock.schedule(after: max(due - clock.now, Self.minimumTickDelay)) { [self] in
      tick(generation: generation)
    }
  }

  package func instanceTickDueChanged(_ instance: InstanceSupervisor) {
    planTick(at: instance.nextTickDue(now: clock.now))
  }

  package static let housekeepingInterval = 1.0
  package static let minimumTickDelay = 0.001

  // MARK: Operations for the control socket

  /// `patchbay send`: into an input port, a value for that instance; on an output port, a value
  /// routed as if the plugin had published it.
  public func send(_ text: String, to address: PortAddress) throws(ControlError) {
    if address.instance == SceneSpec.instanceName {
      try activate(scene: address.port)
      return
    }
    guard let supervisor = instance(named: address.instance) else {
      let names = Array(instances.keys)
      throw ControlError("unknown instance '\(address.instance)'" + Suggestion.hint(for: address.instance, in: names))
    }
    guard let port = supervisor.port(named: address.port) else {
      let names = supervisor.declaredPorts.map(\.name)
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
      guard supervisor.deliver(value, to: port) else { throw ControlError("the input queue of \(address) is full") }
    } else {
      route(value, from: address, kind: port.kind)
    }
  }

  /// Streams `INSTANCE.PORT VALUE` lines whose address matches `pattern` (a prefix, or `*`).
  public func watch(pattern: String, emit: @escaping @Sendable (String) -> Bool) -> UUID {
    let id = UUID()
    tables.withLock {
      $0.watchers[id] = Watcher(pattern: pattern, emit: emit)
      watching.add(1, ordering: .releasing)
    }
    return id
  }

  public func unwatch(_ id: UUID) {
    tables.withLock {
      if $0.watchers.removeValue(forKey: id) != nil { watching.subtract(1, ordering: .releasing) }
    }
  }

  /// The line is only formatted when someone watches (formatting every value was a visible
  /// part of the hub's cost per message).
  package func notifyWatchers(_ text: @autoclosure () -> String) {
    guard watching.load(ordering: .acquiring) > 0 else { return }
    let current = tables.withLock { $0.watchers }
    guard !current.isEmpty else { return }
    let line = text()
    for (id, watcher) in current where Self.matches(line, pattern: watcher.pattern) {
      if !watcher.emit(line) { unwatch(id) }
    }
  }

  package static func matches(_ line: String, pattern: String) -> Bool {
    if pattern.isEmpty || pattern == "*" { return true }
    if pattern.hasSuffix("*") { return line.hasPrefix(String(pattern.dropLast())) }
    return line.hasPrefix(pattern + " ") || line.hasPrefix(pattern + ".")
  }

  public func status() -> HubStatus {
    let (supervisors, errors, routes, scenes, rooms) = tables.withLock { tables in
      (
        Array(tables.instances.values), tables.routeErrors,
        tables.routes.all.map {
          HubStatus.Route(
            id: $0.id, key: $0.spec.keyPath, values: $0.counters.values.load(ordering: .relaxed),
            drops: $0.counters.drops.load(ordering: .relaxed), loopDrops: $0.counters.loopDrops.load(ordering: .relaxed)
          )
        },
        tables.scenes.values.map {
          HubStatus.Scene(
            name: $0.spec.name, ports: $0.values.count, activations: tables.sceneActivations[$0.spec.name] ?? 0)
        },
        // From the config, not the supervisor: a reload that only moves a room restarts nothing.
        Self.rooms(of: tables.config)
      )
    }
    let retained = store.retained()
    return HubStatus(
      version: HubVersion.current, pid: getpid(), uptimeSeconds: Date().timeIntervalSince(startedAt),
      instances: supervisors.map { supervisor in
        var status = supervisor.status()
        status.peer = Self.peer(of: status, retained: retained)
        status.shown = Self.shownPorts(of: status, retained: retained)
        status.room = rooms[status.name]
        return status
      }.sorted { $0.name < $1.name },
      routes: routes,
      inactiveRoutes: errors,
      scenes: scenes.sorted { $0.name < $1.name })
  }

  /// The `room` of every instance that has one, by instance name.
  static func rooms(of config: HubConfig) -> [String: String] {
    var rooms: [String: String] = [:]
    for spec in config.instances {
      if let room = spec.room { rooms[spec.name] = room }
    }
    return rooms
  }

  /// The plugin's peer state: its output declared `PB_PORT_PEER_STATUS` (ABI 1.2), a bool as
  /// connected/disconnected, a text as is; shown only while the instance runs (the retained
  /// value of a stopped instance is history).
  package static func peer(of status: InstanceStatus, retained: [String: Value]) -> String? {
    guard let port = status.ports.first(where: { $0.statusRole == .peer }) else { return nil }
    guard status.phase == .running else { return "-" }
    switch retained["\(status.name).\(port.name)"] {
    case .bool(let up)?: return up ? "connected" : "disconnected"
    case .text(let text)? where !text.isEmpty: return text
    default: return "-"
    }
  }

  /// The text outputs a plugin asked status to show (`PB_PORT_SHOWN_IN_STATUS`, ABI 1.2), by
  /// port name, while the instance runs and the value is not empty.
  package static func shownPorts(of status: InstanceStatus, retained: [String: Value]) -> [String: String]? {
    guard status.phase == .running else { return nil }
    var shown: [String: String] = [:]
    for port in status.ports where port.statusRole == .shown {
      if case .text(let text)? = retained["\(status.name).\(port.name)"], !text.isEmpty { shown[port.name] = text }
    }
    return shown.isEmpty ? nil : shown
  }

  /// `patchbay restart INSTANCE`.
  public func restart(instance name: String) throws(ControlError) {
    guard let supervisor = instance(named: name) else {
      throw ControlError("unknown instance '\(name)'" + Suggestion.hint(for: name, in: Array(instances.keys)))
    }
    DispatchQueue.global().async { supervisor.restartNow() }
  }

  public func pid(of instance: String) -> Int32? { self.instance(named: instance)?.pid }
}

/// A refused control request, with a message for the user.
public struct ControlError: Error, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

// Read access to the installed routes (HubIntrospection.swift, the start-up log line).
extension Hub {
  package func installedRoutes() -> [CompiledRoute] { tables.withLock { $0.routes.all } }
}
