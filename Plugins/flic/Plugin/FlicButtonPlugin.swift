import FlicProtocol
import PatchbayPluginKit

/// The flic plugin: Flic buttons through flicd. Per configured button NAME it publishes
/// `NAME.button` (event: down, up, click, double_click, hold, with queued flag and age),
/// `NAME.connected` (state: bool) and `NAME.battery` (state: integer percent); `peer` (state:
/// text, the PEER column of `patchbay status`) says whether flicd itself is connected.
final class FlicButtonPlugin: PatchbayPlugin {
  struct ButtonPorts {
    var button: OutputPort
    var connected: OutputPort
    var battery: OutputPort
  }

  let context: PluginContext
  let config: FlicConfig
  let ports: [ButtonPorts]
  let peer: OutputPort
  private var connection: FlicdConnection?

  init(context: PluginContext) throws {
    self.context = context
    config = try context.config(FlicConfig.self)
    ports = try config.buttons.map { button in
      ButtonPorts(
        button: try context.addOutput(
          "\(button.name).button", .button, kind: .event, description: "presses of \(button.address)"),
        connected: try context.addOutput(
          "\(button.name).connected", .bool, kind: .state, description: "flicd has a live link to the button"),
        battery: try context.addOutput(
          "\(button.name).battery", .integer, kind: .state, description: "battery level in percent"))
    }
    peer = try context.addOutput(
      "peer", .text, kind: .state, description: "connected or disconnected: the link to flicd itself",
      shownInStatus: .peer)
  }

  func start() throws {
    let context = self.context
    let ports = self.ports
    let peer = self.peer
    let connection = FlicdConnection(
      config: config,
      events: FlicdConnection.Events(
        button: { index, event in context.publish(.button(event), on: ports[index].button) },
        connected: { index, linked in context.publish(.bool(linked), on: ports[index].connected) },
        battery: { index, percent in context.publish(.integer(Int64(percent)), on: ports[index].battery) },
        peer: { text in context.publish(.text(text), on: peer) },
        log: { level, message in context.log(level, message) }))
    self.connection = connection
    context.log(.info, "watching \(config.buttons.count) buttons through flicd at \(config.host):\(config.port)")
    connection.start()
  }

  func receive(_ value: Value, on port: InputPort) throws {
    // The plugin declares no inputs.
  }

  func stop() {
    connection?.stop()
    connection = nil
  }
}

/// The descriptor, exported as `patchbay_plugin_describe` by the library target (kept apart so
/// tests can link this module without a second copy of the entry symbol).
public func describeFlicPlugin() -> UnsafeRawPointer {
  PluginExport.descriptor(
    for: FlicButtonPlugin.self, name: "flic", version: PatchbayVersion.current,
    description: "Flic buttons through flicd: presses, link state and battery per button")
}
