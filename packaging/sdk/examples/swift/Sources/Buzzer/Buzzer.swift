import PatchbayPluginKit

/// buzzer: each click on `buzzer.press` logs its `sound` and publishes a trigger on `buzzer.buzz`.
final class Buzzer: PatchbayPlugin {
  struct Config: Decodable { var sound: String }
  let context: PluginContext
  let sound: String
  let buzz: OutputPort

  init(context: PluginContext) throws {
    self.context = context
    sound = try context.config(Config.self).sound  // a config mistake becomes an error naming the key
    _ = try context.addInput("press", .button, kind: .event, description: "a button press")
    buzz = try context.addOutput("buzz", .trigger, kind: .event, description: "one per click")
  }

  func receive(_ value: Value, on port: InputPort) throws {
    guard case .button(let press) = value, press.action == .click else { return }
    context.log(.info, sound)
    _ = context.publish(.trigger, on: buzz)
  }
}

/// The library's one exported symbol; its name is the plugin's: libpatchbay-plugin-buzzer.so.
@_cdecl("patchbay_plugin_describe")
public func describe() -> UnsafeRawPointer {
  PluginExport.descriptor(for: Buzzer.self, name: "buzzer", version: "1.0.0", description: "Buzzes on a click")
}
