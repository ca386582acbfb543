import Foundation
import PatchbayValues

/// What the control socket's `routes` and `values` commands show: read-only views of the
/// running hub for the web dashboard, built from the same state `status` reads.
extension Hub {
  /// Every installed route with its transforms and drops, in config order.
  public func routeGraph() -> [RouteEdge] {
    let drops = Dictionary(status().routes.map { ($0.id, $0.drops) }, uniquingKeysWith: { $1 })
    return installedRoutes().map { route in
      let spec = route.spec
      var transforms: [String] = []
      if spec.filter != nil { transforms.append("filter") }
      if spec.map != nil { transforms.append("map") }
      if spec.value != nil { transforms.append("value") }
      if spec.cycle != nil { transforms.append("cycle") }
      if !spec.cycleTo.isEmpty { transforms.append("cycle_to") }
      if spec.momentary != nil { transforms.append("momentary") }
      return RouteEdge(
        id: route.id, key: spec.keyPath, name: spec.name, from: spec.from.description,
        targets: spec.targets.map(\.description), transforms: transforms, drops: drops[route.id] ?? 0)
    }
  }

  /// The retained value of every state output, sorted by address.
  public func portValues() -> [PortValueEntry] {
    store.retained().map { PortValueEntry(address: $0.key, value: $0.value.description) }
      .sorted { $0.address < $1.address }
  }

  /// What the hub last gave every state input (or holds for it while its instance is down):
  /// the device's state as far as the hub knows it, where no output mirrors it.
  public func inputValues() -> [PortValueEntry] {
    let supervisors = tables.withLock { Array($0.instances.values) }
    return supervisors.flatMap { supervisor in
      supervisor.inbox.heldState().map {
        PortValueEntry(address: "\(supervisor.spec.name).\($0.key)", value: $0.value.description)
      }
    }.sorted { $0.address < $1.address }
  }
}
