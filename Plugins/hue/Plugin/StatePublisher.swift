import HueProtocol
import PatchbayPluginKit

/// Turns what is known of the bridge into the groups' and members' output values, and
/// publishes only those that changed.
struct StatePublisher {
  let config: HueConfig
  let ports: [GroupPorts]
  let publish: @Sendable (Value, OutputPort) -> Void
  private var published: [UInt32: Value] = [:]

  init(config: HueConfig, ports: [GroupPorts], publish: @escaping @Sendable (Value, OutputPort) -> Void) {
    self.config = config
    self.ports = ports
    self.publish = publish
  }

  /// While the bridge does not answer, `reachable` is false, every member is listed as
  /// unreachable and the states keep their last value.
  mutating func publishAll(model: BridgeModel, bridgeReachable up: Bool) {
    for (index, groupPorts) in ports.enumerated() {
      let group = config.groups[index]
      let membership = GroupMembership(group: group, model: model)
      let ids = membership.members ?? group.members.map(\.lightID)
      let states = ids.compactMap { model.lights[$0] }
      let unreachable = ids.filter { !up || !(model.lights[$0]?.reachable ?? false) }
      send(.bool(up && unreachable.count < ids.count), on: groupPorts.reachable)
      send(.text(unreachable.map(membership.name(of:)).joined(separator: ",")), on: groupPorts.unreachable)
      if up, !states.isEmpty { send(.light(LightConversion.aggregate(states)), on: groupPorts.state) }
      for (memberPorts, member) in zip(groupPorts.members, group.members) {
        let state = model.lights[member.lightID]
        send(.bool(up && state?.reachable == true), on: memberPorts.reachable)
        if up, let state { send(.light(LightConversion.command(state)), on: memberPorts.state) }
      }
    }
  }

  private mutating func send(_ value: Value, on port: OutputPort) {
    guard published[port.index] != value else { return }
    published[port.index] = value
    publish(value, port)
  }
}
