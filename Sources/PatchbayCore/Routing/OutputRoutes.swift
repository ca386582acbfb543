import PatchbayValues

/// Routes interned to port indices: when routes are installed, each instance gets, for every
/// output it declared, the routes that read it, at that output's index, with their targets'
/// supervisors. A published value carries its port's index over the wire, so it finds its
/// routes and their consumers with array indices instead of hashing the names of instances and
/// ports on every value (issue 44).
package struct InternedRoute: Sendable {
  package let route: CompiledRoute
  /// By the index of each of `route.targets`; nil for a scene or an instance that is not there.
  package let supervisors: [InstanceSupervisor?]
  /// `Hub.instancesVersion` when they were found: once a reload has changed the instances,
  /// targets are looked up by name again until routes are installed anew.
  package let instancesVersion: Int
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
          route: route, supervisors: route.targets.map { instances[$0.instance] }, instancesVersion: version)
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
