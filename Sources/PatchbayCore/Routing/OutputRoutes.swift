import PatchbayValues

/// Routes interned to port indices: when routes are installed, each instance gets, for every
/// output it declared, the routes that read it, at that output's index, with their targets'
/// supervisors and input ports. A published value carries its port's index over the wire, so
/// it finds its routes, their consumers and the consumers' port indices with array indices
/// instead of hashing or comparing the names of instances and ports on every value (issue 44).
package struct InternedRoute: Sendable {
  package let route: CompiledRoute
  /// By the index of each of `route.targets`.
  package let targets: [InternedTarget]
  /// `Hub.instancesVersion` when they were found: once a reload has changed the instances,
  /// targets are looked up by name again until routes are installed anew.
  package let instancesVersion: Int
}

/// Where one target of an interned route goes.
package enum InternedTarget: Sendable {
  /// A scene's activation (`scene.NAME`).
  case scene
  /// An input of a running instance, as it was declared when the route was interned.
  case input(InstanceSupervisor, InputPort)
  /// No such instance or input when the route was interned: looked up by name, as before.
  case byName
}

extension RouteTable {
  /// The routes from each of `ports` (of `instance`), by index (inputs have none), with their
  /// targets among `instances` (as of `version`).
  package func routesByIndex(
    of instance: String, ports: [PortDescriptor], instances: [String: InstanceSupervisor], version: Int
  ) -> [[InternedRoute]] {
    ports.map { port in
      guard port.direction == .output else { return [] }
      return routes(from: PortAddress(instance: instance, port: port.name)).map { route in
        InternedRoute(
          route: route,
          targets: route.targets.map { target in
            if target.instance == SceneSpec.instanceName { return .scene }
            guard let supervisor = instances[target.instance], let port = supervisor.inputPort(named: target.port)
            else { return .byName }
            return .input(supervisor, port)
          },
          instancesVersion: version)
      }
    }
  }
}

extension InstanceSupervisor {
  /// Interns the routes from this instance's outputs, computed for the ports it had declared
  /// as `ports`; if it has declared others since (a restart), the lookup by name stays.
  package func installOutputRoutes(_ routes: [[InternedRoute]], declaredAs ports: [PortDescriptor]) {
    state.withLock { state in state.outputRoutes = state.ports == ports ? routes : nil }
  }
}
