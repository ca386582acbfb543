import PatchbayValues

/// Applies a route's transforms to one value: filter, map, constant, cycle, then chooses the
/// targets (all of `to`, or the next of `cycle_to`). Pure: the position in and out is explicit,
/// so it is easy to test and to persist.
package enum RouteTransform {
  package struct Output: Equatable {
    var value: Value
    /// Of the route's targets (its indices are theirs): all, or the one `cycle_to` chose.
    var targets: ArraySlice<PortAddress>
  }

  package static func apply(_ route: CompiledRoute, to input: Value, position: inout HubStateStore.RoutePosition)
    -> Output?
  {
    if let filter = route.filter {
      let key = CompiledRoute.matchKey(input)
      guard filter.contains(where: { CompiledRoute.matchKey($0) == key }) else { return nil }
    }
    var value = input
    if let map = route.map {
      guard let mapped = map[CompiledRoute.matchKey(input)] else { return nil }
      value = mapped
    }
    if let constant = route.constant { value = constant }
    if let cycle = route.cycle, !cycle.isEmpty {
      value = cycle[position.cycle % cycle.count]
      position.cycle = (position.cycle + 1) % cycle.count
    }
    if route.targetType == .trigger { value = .trigger }
    var targets = route.targets[...]
    if route.cyclesTargets {
      let chosen = position.target % route.targets.count
      targets = route.targets[chosen...chosen]
      position.target = (position.target + 1) % route.targets.count
    }
    return Output(value: value, targets: targets)
  }
}
