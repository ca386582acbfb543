import PatchbayPluginKit
import PatchbayValues

/// The hub ports of one accessory, named as homebridge-websocket names them (moving from
/// Homebridge to this bridge is a one-line config change). For accessory NAME (port prefix:
/// NAME lowercased, other characters than a-z, 0-9 and _ replaced by _) and characteristic C
/// (snake name: `on`, `brightness`, `current_temperature`):
/// - input `NAME.C` (state): the hub sets the value HomeKit sees;
/// - output `NAME.C.set` (state), for what a controller may write: what HomeKit wrote. It
///   mirrors `NAME.C` (ABI 1.2), so a restart never undoes what the user did in Home;
/// - lightbulb: input `NAME.light` (light: what party-lights and scenes drive), output
///   `NAME.light.set` (light, event: each HomeKit write as a partial command); with hue and
///   saturation also `NAME.color` / `NAME.color.set` (color);
/// - programmable_switch: input `NAME.button` (button, event): click, double_click, hold ->
///   single, double, long press.
struct AccessoryPorts: Sendable {
  /// What an input port carries.
  enum Input: Sendable, Hashable {
    case characteristic(Characteristic)
    case light
    case color
    case button
  }

  struct Port: Sendable, Hashable {
    var name: String
    var type: ValueType
    var kind: PortKind
    var isOutput: Bool
    /// For an output: the input it mirrors.
    var mirrors: String?
    var description: String
  }

  let accessory: HomeKitConfig.Accessory
  let prefix: String
  /// Input port name -> what it carries.
  private(set) var inputs: [String: Input] = [:]
  /// Every port, inputs before the outputs that mirror them.
  private(set) var ports: [Port] = []

  init(_ accessory: HomeKitConfig.Accessory) {
    self.accessory = accessory
    prefix = accessory.portPrefix
    let name = accessory.name
    for characteristic in accessory.characteristics where !characteristic.readsNull {
      let input = "\(prefix).\(characteristic.portName)"
      add(
        input, characteristic.valueType, .state, carrying: .characteristic(characteristic),
        "sets \(name) \(characteristic.name) in HomeKit")
      if characteristic.writable {
        add(
          output: "\(input).set", characteristic.valueType, .state, mirroring: input,
          "HomeKit wrote \(name) \(characteristic.name)")
      }
    }
    switch accessory.service {
    case .lightbulb:
      add("\(prefix).light", .light, .state, carrying: .light, "sets \(name) on/brightness/color in HomeKit")
      add(
        output: "\(prefix).light.set", .light, .event, mirroring: "\(prefix).light",
        "HomeKit wrote \(name), as a light command")
      if hasColor {
        add("\(prefix).color", .color, .state, carrying: .color, "sets \(name) hue/saturation(/brightness)")
        add(
          output: "\(prefix).color.set", .color, .state, mirroring: "\(prefix).color", "HomeKit wrote \(name)'s color")
      }
    case .programmableSwitch:
      add(
        "\(prefix).button", .button, .event, carrying: .button,
        "presses \(name): click, double_click, hold -> single, double, long press")
    default:
      break
    }
  }

  private mutating func add(_ name: String, _ type: ValueType, _ kind: PortKind, carrying input: Input, _ text: String)
  {
    inputs[name] = input
    ports.append(Port(name: name, type: type, kind: kind, isOutput: false, mirrors: nil, description: text))
  }

  private mutating func add(
    output name: String, _ type: ValueType, _ kind: PortKind, mirroring input: String, _ text: String
  ) {
    ports.append(Port(name: name, type: type, kind: kind, isOutput: true, mirrors: input, description: text))
  }

  func has(_ characteristic: Characteristic) -> Bool { accessory.characteristics.contains(characteristic) }
  var hasColor: Bool { has(.hue) && has(.saturation) }

  // MARK: Hub -> HomeKit

  /// The characteristic values one input value stands for (type, value), already in range;
  /// empty when nothing applies.
  func updates(for value: Value, on input: Input) -> [(Characteristic, JSONValue)] {
    switch (input, value) {
    case (.characteristic(let characteristic), _):
      guard let json = CharacteristicValue.fromHub(value, for: characteristic) else { return [] }
      return [(characteristic, json)]
    case (.light, .light(let light)):
      var updates: [(Characteristic, JSONValue)] = []
      func add(_ characteristic: Characteristic, _ number: Double) {
        guard has(characteristic),
          let json = CharacteristicValue.fromHub(.number(number), for: characteristic, clamping: true)
        else { return }
        updates.append((characteristic, json))
      }
      if let brightness = light.brightness { add(.brightness, brightness) }
      if let color = light.color, hasColor {
        let color = color.normalized
        add(.hue, color.hue)
        add(.saturation, color.saturation)
      }
      if let mired = light.colorTemperature { add(.colorTemperature, mired) }
      // Off first, on last: HomeKit never sees a lit bulb with the old settings.
      if let on = light.on {
        if on { updates.append((.on, .bool(true))) } else { updates.insert((.on, .bool(false)), at: 0) }
      }
      return updates
    case (.color, .color(let color)):
      guard hasColor else { return [] }
      let color = color.normalized
      // On each characteristic's step and within its range, as the light's color above.
      var updates: [(Characteristic, JSONValue)] = []
      for (characteristic, number) in [(Characteristic.hue, color.hue), (.saturation, color.saturation)]
        + (has(.brightness) ? [(.brightness, color.brightness)] : [])
      {
        if let json = CharacteristicValue.fromHub(.number(number), for: characteristic, clamping: true) {
          updates.append((characteristic, json))
        }
      }
      return updates
    case (.button, .button(let button)):
      let event: Int64
      switch button.action {
      case .click: event = 0
      case .doubleClick: event = 1
      case .hold: event = 2
      case .down, .up: return []
      }
      return [(.programmableSwitchEvent, .integer(event))]
    default:
      return []
    }
  }

  // MARK: HomeKit -> hub

  /// What to publish (value, output port name) for a controller's write of `characteristic`,
  /// already validated; `current` gives the accessory's other values (a color needs both hue
  /// and saturation).
  func publications(for characteristic: Characteristic, value: JSONValue, current: (Characteristic) -> JSONValue?)
    -> [(Value, String)]
  {
    var result: [(Value, String)] = []
    if characteristic.writable, let hubValue = CharacteristicValue.toHub(value, for: characteristic) {
      result.append((hubValue, "\(prefix).\(characteristic.portName).set"))
    }
    guard accessory.service == .lightbulb else { return result }
    var command = LightCommand()
    let number = value.doubleValue
    switch characteristic {
    case .on: command.on = value.boolValue
    case .brightness: command.brightness = number
    case .colorTemperature: command.colorTemperature = number
    case .hue, .saturation: if hasColor { command.color = color(current) }
    default: break
    }
    if command != LightCommand() { result.append((.light(command), "\(prefix).light.set")) }
    if hasColor, [Characteristic.hue, .saturation, .brightness].contains(characteristic) {
      result.append((.color(color(current)), "\(prefix).color.set"))
    }
    return result
  }

  private func color(_ current: (Characteristic) -> JSONValue?) -> HSBColor {
    HSBColor(
      hue: current(.hue)?.doubleValue ?? 0, saturation: current(.saturation)?.doubleValue ?? 0,
      brightness: has(.brightness) ? current(.brightness)?.doubleValue ?? 100 : 100)
  }
}
