import PatchbayPluginKit

/// The ports of one exposed group: `G.light` in; `G.state`, `G.reachable`, `G.unreachable` out;
/// and per member (with `expose_lights`) `G.M.light` in, `G.M.state` and `G.M.reachable` out.
struct GroupPorts: Sendable {
  struct Member: Sendable {
    var light: InputPort
    var state: OutputPort
    var reachable: OutputPort
  }

  var light: InputPort
  var state: OutputPort
  var reachable: OutputPort
  var unreachable: OutputPort
  var members: [Member]

  init(declaring group: HueConfig.Group, in context: PluginContext) throws {
    let name = group.name
    light = try context.addInput(
      "\(name).light", .light, kind: .state, description: "a light command for the whole group (one group action)")
    // The bridge's state (changed by the hub, the Hue app or a switch): a restart gives the
    // plugin what the lights show now, not an older command that would undo the app's change.
    state = try context.addOutput(
      "\(name).state", .light, kind: .state,
      description: "on if any member is on; brightness and color averaged over the members that are on",
      mirroring: light)
    reachable = try context.addOutput(
      "\(name).reachable", .bool, kind: .state,
      description: "the bridge answers and at least one member is reachable")
    unreachable = try context.addOutput(
      "\(name).unreachable", .text, kind: .state,
      description: "the members the bridge cannot reach, comma-separated (empty when all are fine)")
    members = []
    guard group.exposeLights else { return }
    for member in group.members {
      let prefix = "\(name).\(member.name)"
      let light = try context.addInput(
        "\(prefix).light", .light, kind: .state, description: "a light command for light \(member.lightID)")
      members.append(
        Member(
          light: light,
          state: try context.addOutput(
            "\(prefix).state", .light, kind: .state,
            description: "light \(member.lightID): on, brightness and color or color temperature", mirroring: light),
          reachable: try context.addOutput(
            "\(prefix).reachable", .bool, kind: .state, description: "the bridge reaches light \(member.lightID)")))
    }
  }
}
