import PatchbayPluginKit

/// The two ports of one light or group target: commands out (routed to the driver's `light`
/// input) and the driver's `state` in (the pre-party state is captured from it).
struct TargetPorts {
  let name: String
  let light: OutputPort
  let state: InputPort

  init(name: String, in context: PluginContext) throws {
    self.name = name
    light = try context.addOutput(
      "\(name).light", .light, kind: .state,
      description: "party colors, then the restore; route to the driver's light input")
    state = try context.addInput(
      "\(name).state", .light, kind: .state,
      description: "the driver's state of \(name), captured when the party starts")
  }
}
