import PatchbayValues

/// Compiled routes indexed by the output they read.
package struct RouteTable: Sendable {
  private(set) var bySource: [PortAddress: [CompiledRoute]] = [:]
  private(set) var all: [CompiledRoute] = []

  package init(_ routes: [CompiledRoute] = []) {
    all = routes
    for route in routes { bySource[route.spec.from, default: []].append(route) }
  }

  package func routes(from address: PortAddress) -> [CompiledRoute] { bySource[address] ?? [] }
}
