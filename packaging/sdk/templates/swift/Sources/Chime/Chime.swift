import PatchbayPluginKit

/// chime: a patchbay plugin in Swift, the starting point of your own. Each click on
/// `chime.press` plays the next of its `tones` (published on `chime.tone`) and counts on
/// `chime.chimes`.
///
/// ```toml
/// [instances.chime]
/// plugin = "chime"
/// tones = ["ding", "dong"]
/// ```
final class Chime: PatchbayPlugin {
  struct Config: Decodable {
    var tones: [String]
  }

  let context: PluginContext
  let tones: [String]
  let tone: OutputPort
  let chimes: OutputPort
  var count: Int64 = 0

  init(context: PluginContext) throws {
    self.context = context
    // A config mistake becomes an error that names the key.
    tones = try context.config(Config.self).tones
    guard !tones.isEmpty else { throw PluginError.config("tones: list at least one tone, like [\"ding\"]") }
    _ = try context.addInput("press", .button, kind: .event, description: "a button press")
    tone = try context.addOutput("tone", .text, kind: .event, description: "the tone played")
    chimes = try context.addOutput("chimes", .integer, kind: .state, description: "chimes so far")
  }

  func start() throws {
    _ = context.publish(.integer(count), on: chimes)
    context.log(.info, "chime ready with \(tones.count) tones")
  }

  func receive(_ value: Value, on port: InputPort) throws {
    guard case .button(let press) = value, press.action == .click else { return }
    _ = context.publish(.text(tones[Int(count % Int64(tones.count))]), on: tone)
    count += 1
    _ = context.publish(.integer(count), on: chimes)
  }
}

/// The library's one exported symbol.
@_cdecl("patchbay_plugin_describe")
public func describe() -> UnsafeRawPointer {
  PluginExport.descriptor(for: Chime.self, name: "chime", version: "1.0.0", description: "Plays its tones in turn")
}
