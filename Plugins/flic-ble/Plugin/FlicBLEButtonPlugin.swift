import FlicBLEBlueZ
import FlicBLEProtocol
import PatchbayPluginKit

/// The flic-ble plugin: Flic 2 buttons through BlueZ, without flicd. Its ports match the flic
/// plugin's: per button NAME `NAME.button` (event: click, double_click, hold, and down/up when
/// asked; queued flag and age), `NAME.connected` (state: bool), `NAME.battery` (state: integer
/// percent) and `NAME.battery_mv` (millivolts); `peer` (state: text, the PEER column) says how
/// BlueZ is: the bus, bluetoothd, the adapter. A Flic Duo (`model = "duo"`) adds
/// `NAME.small_button` (event: as `NAME.button`), `NAME.swipe` and `NAME.small_swipe` (event: text,
/// left/right/up/down). A Flic Twist (`model = "twist"`) adds `NAME.twist` (state: number, the
/// dial in percent), `NAME.dimmer` (state: light, the same as a brightness command) and, by its
/// `twist_mode`, `NAME.push_twist` (dimmer: the dial turned while pushed) or `NAME.slot`
/// (selector: integer 1-12, the slot picked by pushing and turning; `NAME.twist` is its level).
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
    /// A Twist's: the dial in percent, the same as a light command, and by mode the pushed dial or the slot.
    var twist: OutputPort?
    var dimmer: OutputPort?
    var pushTwist: OutputPort?
    var slot: OutputPort?
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
      if button.model == .twist {
        ports.twist = try context.addOutput(
          "\(button.name).twist", .number, kind: .state,
          description:
            "the Twist's dial in percent (0-100)\(button.twistMode == .selector ? " in the active slot" : "")")
        ports.dimmer = try context.addOutput(
          "\(button.name).dimmer", .light, kind: .state,
          description: "the dial as a light command: brightness in percent, off at 0 (route it to a light)")
        if button.twistMode == .selector {
          ports.slot = try context.addOutput(
            "\(button.name).slot", .integer, kind: .state, description: "the slot (1-12) picked by pushing and turning")
        } else {
          ports.pushTwist = try context.addOutput(
            "\(button.name).push_twist", .number, kind: .state,
            description: "the dial turned while pushed, in percent (0-100)")
        }
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
    if !config.testFactoryKeys.isEmpty { keys = TrustedFactoryKeys(testOnlyKeys: keys.keys + config.testFactoryKeys) }
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
            twist: { which, percent in
              switch which {
              case .pushed:
                if let port = ports[index].pushTwist { _ = context.publish(.number(percent), on: port) }
              case .dial:
                if let port = ports[index].twist { _ = context.publish(.number(percent), on: port) }
                if let port = ports[index].dimmer {
                  _ = context.publish(.light(LightCommand(on: percent > 0, brightness: percent)), on: port)
                }
              }
            },
            slot: { slot in
              if let port = ports[index].slot { _ = context.publish(.integer(Int64(slot + 1)), on: port) }
            },
            connected: { _ = context.publish(.bool($0), on: ports[index].connected) },
            battery: { millivolts in
              let percent = BatteryPercent.of(millivolts: millivolts, twist: button.model == .twist)
              _ = context.publish(.integer(Int64(percent)), on: ports[index].battery)
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
/// A Twist's two AAA cells: 3.0 V full, 2.2 V empty (patchbay's choice; pyflic-ble reports volts only).
enum BatteryPercent {
  static func of(millivolts: UInt16, twist: Bool = false) -> Int {
    twist ? max(0, min(100, (Int(millivolts) - 2200) / 8)) : max(0, min(100, (Int(millivolts) - 2500) / 5))
  }
}

/// The descriptor, exported as `patchbay_plugin_describe` by the library target.
public func describeFlicBLEPlugin() -> UnsafeRawPointer {
  PluginExport.descriptor(
    for: FlicBLEButtonPlugin.self, name: "flic-ble", version: PatchbayVersion.current,
    description:
      "Flic 2, Flic Duo and Flic Twist through BlueZ (no flicd): presses, swipes, the Twist's dial, link state and battery"
  )
}
