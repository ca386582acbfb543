import Foundation
import Logging
import PatchbayValues
import PatchbayWire
import Synchronization

/// Values flowing: a value published on an output is retained (state), shown to watchers and
/// sent down every route from it, through the route's condition and transform, into the
/// inboxes of its targets (waiting for room: back-pressure). Also compiles the route table.
extension Hub {
  package func instance(
    _ instance: InstanceSupervisor, published value: Value, on port: String, kind: PortKind, routes: [InternedRoute]?,
    hops: UInt8, batch: DeliveryBatch?
  ) {
    var scenes: [SceneActivation] = []
    route(
      value, from: PortAddress(instance: instance.spec.name, port: port), kind: kind, producer: instance,
      batch: batch, hops: hops, scenes: &scenes, routes: routes)
    handOut(scenes: &scenes, batch: batch)
  }

  /// A value appeared on an output: retain it (state), show it to watchers, send it down routes.
  /// A reader's `batch` collects the inputs to send them per consumer after its read. `hops`:
  /// the routes the value has already passed through (0 for a value a plugin or the user made).
  /// Scenes the routes activate are handed out here, one after the other, never by recursion.
  package func route(
    _ value: Value, from source: PortAddress, kind: PortKind, producer: InstanceSupervisor? = nil,
    batch: DeliveryBatch? = nil, hops: UInt8 = 0
  ) {
    var scenes: [SceneActivation] = []
    route(value, from: source, kind: kind, producer: producer, batch: batch, hops: hops, scenes: &scenes)
    handOut(scenes: &scenes, batch: batch)
  }

  /// `known`: the routes from `source` when the caller has them by index (`OutputRoutes`).
  package func route(
    _ value: Value, from source: PortAddress, kind: PortKind, producer: InstanceSupervisor?, batch: DeliveryBatch?,
    hops: UInt8, scenes: inout [SceneActivation], routes known: [InternedRoute]? = nil
  ) {
    if kind == .state, !store.retain(value, for: source.description), hops > 0 {
      // A plugin echoing the state it was just given (a switch mirrored between two plugins):
      // nothing changed, so nothing is passed on and the sync settles.
      return
    }
    notifyWatchers("\(source) \(value)")
    if let known {
      let version = instancesVersion.load(ordering: .acquiring)
      for interned in known {
        // Targets found at installation hold while the instances are the same ones.
        let targets = interned.instancesVersion == version ? interned.targets : nil
        pass(
          value, from: source, along: interned.route, to: targets, producer: producer, batch: batch, hops: hops,
          scenes: &scenes)
      }
    } else {
      for route in tables.withLock({ $0.routes.routes(from: source) }) {
        pass(value, from: source, along: route, to: nil, producer: producer, batch: batch, hops: hops, scenes: &scenes)
      }
    }
  }

  /// One route's part of `route`: its condition, loop cut, transform, delivery and position.
  private func pass(
    _ value: Value, from source: PortAddress, along route: CompiledRoute, to interned: [InternedTarget]?,
    producer: InstanceSupervisor?, batch: DeliveryBatch?, hops: UInt8, scenes: inout [SceneActivation]
  ) {
    if let condition = route.condition,
      !condition.holds(for: store.retainedValue(for: condition.source.description))
    {
      return
    }
    guard hops < WireProtocol.maximumHops else {
      cutLoop(at: route, from: source)
      return
    }
    var position = route.cycle != nil || route.cyclesTargets ? store.position(of: route.id) : .init()
    let before = position
    guard let output = RouteTransform.apply(route, to: value, position: &position) else { return }
    // Delivered first: the position is written at once, but that waits for fsync (several
    // ms on a slow disk: most of a button-to-HomeKit press, docs/BENCHMARKS.md).
    route.counters.values.add(1, ordering: .relaxed)
    deliver(
      output.value, to: output.targets, via: route, from: producer, batch: batch, hops: hops + 1, scenes: &scenes,
      interned: interned)
    if position != before { store.setPosition(position, of: route.id) }
    if let reset = route.momentaryReset {
      let targets = output.targets
      // Holds the hub until then (no weak self: see `planTick`).
      clock.schedule(after: Double(route.momentaryDelayMs) / 1000) { [self] in
        deliver(reset, to: targets, via: route)
      }
    }
  }

  /// A value that has passed through `WireProtocol.maximumHops` routes is going round a loop
  /// (plugins echoing each other's outputs): this route drops it, counts it, and says so once.
  private func cutLoop(at route: CompiledRoute, from source: PortAddress) {
    let count = route.counters.loopDrops.add(1, ordering: .relaxed).newValue
    guard count == 1 else { return }
    let message =
      "\(route.spec.file): \(route.spec.keyPath) (\(route.id)): dropped a value from \(source) that had already passed"
      + " through \(WireProtocol.maximumHops) routes: the routes and plugins form a loop (an output routed back,"
      + " directly or through other instances, to what produces it); further drops are counted in `patchbay status`"
    logger.warning("\(message)")
  }

  /// Hands a value to the targets of a route (what a momentary reset does, or a replay).
  package func deliver(_ value: Value, to targets: ArraySlice<PortAddress>, via route: CompiledRoute) {
    var scenes: [SceneActivation] = []
    deliver(value, to: targets, via: route, from: nil, batch: nil, hops: 1, scenes: &scenes)
    handOut(scenes: &scenes, batch: nil)
  }

  /// Scene targets are not activated here but queued in `scenes`, for the caller's loop.
  /// `interned`: the route's targets as found when it was installed (by the targets' indices
  /// in the route); without them, or for one whose ports have changed since, each is looked up
  /// by name.
  package func deliver(
    _ value: Value, to targets: ArraySlice<PortAddress>, via route: CompiledRoute, from producer: InstanceSupervisor?,
    batch: DeliveryBatch?, hops: UInt8, scenes: inout [SceneActivation], interned: [InternedTarget]? = nil
  ) {
    for index in targets.indices {
      if let interned {
        switch interned[index] {
        case .input(let supervisor, let port)
        where port.generation == supervisor.portsGeneration.load(ordering: .acquiring):
          if !supervisor.deliver(value, to: port, from: producer, batch: batch, hops: hops) {
            countDrop(on: route, to: targets[index])
          }
          continue
        case .scene:
          scenes.append(SceneActivation(name: targets[index].port, hops: hops))
          continue
        case .input, .byName:
          break
        }
      }
      let target = targets[index]
      if target.instance == SceneSpec.instanceName {
        scenes.append(SceneActivation(name: target.port, hops: hops))
        continue
      }
      guard let supervisor = instance(named: target.instance), let port = supervisor.port(named: target.port)
      else { continue }
      if !supervisor.deliver(value, to: port, from: producer, batch: batch, hops: hops) {
        countDrop(on: route, to: target)
      }
    }
  }

  private func countDrop(on route: CompiledRoute, to target: PortAddress) {
    let count = route.counters.drops.add(1, ordering: .relaxed).newValue
    // Log the first drop and then every 100th, so a flood cannot flood the log too.
    if count == 1 || count % 100 == 0 {
      logger.warning("queue of \(target) is full: dropped \(count) events from route \(route.spec.keyPath)")
    }
  }

  /// Compiles routes. Routes whose instances could not start are skipped with an error (the
  /// rest of the hub runs); routes that do not fit the declared ports are config errors.
  package func installRoutes(_ specs: [RouteSpec], scenes sceneSpecs: [SceneSpec]) throws(ConfigErrors) {
    var catalog: PortCatalog = [:]
    var down: Set<String> = []
    for (name, supervisor) in instances {
      let ports = supervisor.declaredPorts
      if supervisor.hasBeenCreated { catalog[name] = ports } else { down.insert(name) }
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
    let kept = tables.withLock { tables in
      Dictionary(tables.routes.all.map { ($0.id, $0.counters) }) { first, _ in first }
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
      // A route the reload keeps goes on counting where it was.
      switch RouteCompiler.compile(spec, catalog: catalog, counters: kept[spec.identity] ?? RouteCounters()) {
      case .success(let route): compiled.append(route)
      case .failure(let errors): diagnostics += errors.diagnostics
      }
    }
    guard diagnostics.isEmpty else { throw ConfigErrors(diagnostics) }
    let table = RouteTable(compiled)
    let (current, version) = tables.withLock { tables in
      tables.routes = table
      tables.routeErrors = skipped
      tables.scenes = compiledScenes
      return (tables.instances, instancesVersion.load(ordering: .relaxed))
    }
    for (name, supervisor) in current {
      guard let ports = catalog[name] else { continue }
      supervisor.installOutputRoutes(
        table.routesByIndex(of: name, ports: ports, instances: current, version: version), declaredAs: ports)
    }
    replayRetained()
  }

  /// Gives every state input the retained value of the state output routed to it (a consumer
  /// that starts later, or after a hub restart, sees the current state at once).
  package func replayRetained() {
    let retained = store.retained()
    for route in installedRoutes() {
      guard route.cycle == nil, !route.cyclesTargets, route.spec.momentary == nil,
        let value = retained[route.spec.from.description],
        instance(named: route.spec.from.instance)?.port(named: route.spec.from.port)?.kind == .state
      else { continue }
      var position = HubStateStore.RoutePosition()
      if let output = RouteTransform.apply(route, to: value, position: &position) {
        deliver(output.value, to: output.targets, via: route)
      }
    }
  }
}
