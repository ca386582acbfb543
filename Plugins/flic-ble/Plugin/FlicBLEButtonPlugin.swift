import FlicBLEBlueZ
import FlicBLEProtocol
import PatchbayPluginKit

/// The flic-ble plugin: Flic 2 buttons through BlueZ, without flicd. Its ports match the flic
/// plugin's: per button NAME `NAME.button` (event: click, double_click, hold, and down/up when
/// asked; queued flag and age), `NAME.connected` (state: bool), `NAME.battery` (state: integer
/// percent) and `NAME.battery_mv` (millivolts); `peer` (state: text, the PEER column) says how
/// BlueZ is: the bus, bluetoothd, the adapter. A Flic Duo (`model = "duo"`) adds
/// `NAME.small_button` (event: as `NAME.button`), `NAME.swipe` and `NAME.small_swipe` (event: text,
/// left/right/up/down).
final class FlicBLEButtonPlugin: PatchbayPlugin {
  struct ButtonPorts {
    var button: OutputPort
    var connected: OutputPort
    var battery: OutputPort
    var millivolts: OutputPort
    /// A Duo's: its small button, and swipes across each button.
    var smallButton: OutputPort?
    var swipe: OutputPort?
    var smallSwipe: OutputPort?
  }

  let context: PluginContext
  let config: FlicBLEConfig
  let ports: [ButtonPorts]
  let peer: OutputPort
  private var bus: SystemBus?
  /// The instance's fleet, handed between the plugin's calls and the bus thread.
  private var fleet: BusConfined<ButtonFleet?>?

  init(context: PluginContext) throws {
    self.context = context
    config = try FlicBLEConfig(json: context.configJSON)
    ports = try config.buttons.map { button in
      var ports = ButtonPorts(
        button: try context.addOutput(
          "\(button.name).button", .button, kind: .event, description: "presses of \(button.address)"),
        connected: try context.addOutput(
          "\(button.name).connected", .bool, kind: .state, description: "a verified link to the button is up"),
        battery: try context.addOutput(
          "\(button.name).battery", .integer, kind: .state, description: "battery level in percent"),
        millivolts: try context.addOutput(
          "\(button.name).battery_mv", .integer, kind: .state, description: "battery voltage in millivolts"))
      if button.model == .duo {
        ports.smallButton = try context.addOutput(
          "\(button.name).small_button", .button, kind: .event,
          description: "presses of the small button of the Duo \(button.address)")
        ports.swipe = try context.addOutput(
          "\(button.name).swipe", .text, kind: .event,
          description: "swipes across the big button: left, right, up, down")
        ports.smallSwipe = try context.addOutput(
          "\(button.name).small_swipe", .text, kind: .event,
          description: "swipes across the small button: left, right, up, down")
      }
      return ports
    }
    peer = try context.addOutput(
      "peer", .text, kind: .state, description: "BlueZ: the system bus, bluetoothd and the adapter",
      shownInStatus: .peer)
  }

  func start() throws {
    let bus = SystemBus()
    self.bus = bus
    let holder = BusConfined<ButtonFleet?>(nil, on: bus)
    fleet = holder
    let context = self.context
    let config = self.config
    let ports = self.ports
    let peer = self.peer
    var keys = TrustedFactoryKeys.shortcutLabs
    if let test = config.testFactoryKey { keys = TrustedFactoryKeys(testOnlyKeys: keys.keys + [test]) }
    let trusted = keys
    context.log(.info, "watching \(config.buttons.count) Flic buttons through BlueZ on \(SystemBus.address)")
    bus.start {
      let client = BlueZClient(bus: bus)
      let buttons = config.buttons.enumerated().map { index, button in
        ButtonConnection(
          button: button, instance: context.instanceName, client: client, stateDirectory: context.stateDirectory,
          filter: PressFilter(exposeUpDown: config.exposeUpDown, maxQueuedAgeSeconds: config.maxQueuedAgeSeconds),
          trustedKeys: trusted, autoDisconnectSeconds: UInt16(config.autoDisconnectSeconds),
          events: .init(
            button: { which, press in
              guard let port = which == 0 ? ports[index].button : ports[index].smallButton else { return }
              _ = context.publish(.button(press), on: port)
            },
            swipe: { which, direction in
              guard let port = which == 0 ? ports[index].swipe : ports[index].smallSwipe else { return }
              _ = context.publish(.text(direction), on: port)
            },
            connected: { _ = context.publish(.bool($0), on: ports[index].connected) },
            battery: { millivolts in
              _ = context.publish(.integer(Int64(BatteryPercent.of(millivolts: millivolts))), on: ports[index].battery)
              _ = context.publish(.integer(Int64(millivolts)), on: ports[index].millivolts)
            },
            log: { context.log($0, $1) }))
      }
      let fleet = ButtonFleet(
        client: client, buttons: buttons, peer: { _ = context.publish(.text($0), on: peer) },
        log: { context.log($0, $1) })
      holder.value = fleet
      fleet.start()
    }
  }

  func receive(_ value: Value, on port: InputPort) throws {
    // The plugin declares no inputs.
  }

  func stop() {
    guard let bus, let holder = fleet else { return }
    bus.perform {
      holder.value?.stop()
      holder.value = nil
    }
    bus.stop()
    self.bus = nil
    fleet = nil
  }
}

/// A CR2032's voltage as a percentage: 3.0 V full, 2.5 V empty (a Flic 2 stops working around 2.4 V).
enum BatteryPercent {
  static func of(millivolts: UInt16) -> Int { max(0, min(100, (Int(millivolts) - 2500) / 5)) }
}

/// The descriptor, exported as `patchbay_plugin_describe` by the library target.
public func describeFlicBLEPlugin() -> UnsafeRawPointer {
  PluginExport.descriptor(
    for: FlicBLEButtonPlugin.self, name: "flic-ble", version: PatchbayVersion.current,
    description:
      "Flic 2 and Flic Duo buttons through BlueZ (no flicd): presses, swipes, link state and battery per button")
}
