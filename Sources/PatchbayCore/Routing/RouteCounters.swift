import Synchronization

/// What one route passed on (after its filter and transform) and what its targets' full queues
/// dropped: counted on the hot path without the hub's lock or a lookup by name. A reload keeps
/// the counters of a route it keeps.
package final class RouteCounters: Sendable {
  package let values = Atomic<Int>(0)
  package let drops = Atomic<Int>(0)
  /// Values dropped because they had passed through too many routes: a loop (WireProtocol.maximumHops).
  package let loopDrops = Atomic<Int>(0)

  package init() {}
}
