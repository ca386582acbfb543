import HomebridgeProtocol
import PatchbayPluginKit

/// The ports of one accessory and how values cross between them and characteristics.
///
/// For accessory NAME (port prefix: NAME lowercased, other characters than a-z, 0-9 and _
/// replaced by _) and characteristic C (snake name, e.g. `on`, `brightness`):
/// - input `NAME.C` (state): the hub sets the value HomeKit sees;
/// - output `NAME.C.set` (state): HomeKit wrote the value (only characteristics HomeKit may write);
///   it mirrors `NAME.C`, so a restart gives the plugin what HomeKit wrote, not the older value;
/// - Lightbulb: input `NAME.light` (light), output `NAME.light.set` (light, event: each
///   HomeKit write as a partial command);
/// - Lightbulb with hue and saturation: input `NAME.color` (color), output `NAME.color.set`;
/// - StatelessProgrammableSwitch: input `NAME.button` (button, event): click, double_click, hold.
struct AccessoryPorts {
  enum Input {
    case characteristic(CharacteristicSpec)
    case light
    case color
    case button
  }

  let definition: AccessoryDefinition
  let prefix: String
  private(set) var inputs: [UInt32: Input] = [:]
  private(set) var setOutputs: [String: OutputPort] = [:]
  private(set) var lightOutput: OutputPort?
  private(set) var colorOutput: OutputPort?

  static func prefix(for name: String) -> String {
    String(
      name.lowercased().map { character -> Character in
        character.isASCII && (character.isLetter || character.isNumber || character == "_") ? character : "_"
      })
  }

  static func portType(_ spec: CharacteristicSpec) -> ValueType {
    switch spec.format {
    case .bool: .bool
    case .float: .number
    case .string: .text
    case .uint8, .uint16, .uint32, .int: .integer
    }
  }

  init(declaring definition: AccessoryDefinition, in context: PluginContext) throws {
    self.definition = definition
    prefix = Self.prefix(for: definition.name)
    let name = definition.name
    for spec in definition.characteristics where !spec.isEvent {
      let type = Self.portType(spec)
      let input = try context.addInput(
        "\(prefix).\(spec.snakeName)", type, kind: .state, description: "sets \(name) \(spec.name) in HomeKit")
      inputs[input.index] = .characteristic(spec)
      if spec.homeKitWritable {
        setOutputs[spec.name] = try context.addOutput(
          "\(prefix).\(spec.snakeName).set", type, kind: .state, description: "HomeKit wrote \(name) \(spec.name)",
          mirroring: input)
      }
    }
    switch definition.service.name {
    case "Lightbulb":
      let light = try context.addInput(
        "\(prefix).light", .light, kind: .state, description: "sets \(name) On/Brightness/Hue/Saturation")
      inputs[light.index] = .light
      lightOutput = try context.addOutput(
        "\(prefix).light.set", .light, kind: .event, description: "HomeKit wrote \(name), as a light command",
        mirroring: light)
      if hasColor {
        let color = try context.addInput(
          "\(prefix).color", .color, kind: .state, description: "sets \(name) Hue/Saturation(/Brightness)")
        inputs[color.index] = .color
        colorOutput = try context.addOutput(
          "\(prefix).color.set", .color, kind: .state, description: "HomeKit wrote \(name)'s color",
          mirroring: color)
      }
    case "StatelessProgrammableSwitch":
      let button = try context.addInput(
        "\(prefix).button", .button, kind: .event,
        description: "presses \(name): click, double_click, hold -> single, double, long press")
      inputs[button.index] = .button
    default:
      break
    }
  }

  var hasColor: Bool { has(ServiceCatalog.hue) && has(ServiceCatalog.saturation) }

  func has(_ spec: CharacteristicSpec) -> Bool { definition.characteristic(named: spec.name) != nil }

  private func key(_ spec: CharacteristicSpec) -> ClientSession.Key {
    ClientSession.Key(accessory: definition.name, characteristic: spec.name)
  }

  // MARK: Hub -> HomeKit

  /// The characteristic updates one input value stands for; empty when nothing applies.
  func updates(for value: Value, on input: Input) -> [(ClientSession.Key, JSONValue)] {
    switch (input, value) {
    case (.characteristic(let spec), _):
      guard let json = Self.json(value) else { return [] }
      return [(key(spec), json)]
    case (.light, .light(let light)):
      var updates: [(ClientSession.Key, JSONValue)] = []
      if let brightness = light.brightness, has(ServiceCatalog.brightness) {
        updates.append((key(ServiceCatalog.brightness), .number(brightness)))
      }
      if let color = light.color, hasColor {
        updates.append((key(ServiceCatalog.hue), .number(color.hue)))
        updates.append((key(ServiceCatalog.saturation), .number(color.saturation)))
      }
      if let mired = light.colorTemperature, has(ServiceCatalog.colorTemperature) {
        updates.append((key(ServiceCatalog.colorTemperature), .number(mired)))
      }
      // Off first, on last: HomeKit never sees a lit bulb with the old settings.
      if let on = light.on {
        let update = (key(ServiceCatalog.on), JSONValue.bool(on))
        if on { updates.append(update) } else { updates.insert(update, at: 0) }
      }
      return updates
    case (.color, .color(let color)):
      var updates = [
        (key(ServiceCatalog.hue), JSONValue.number(color.hue)),
        (key(ServiceCatalog.saturation), JSONValue.number(color.saturation)),
      ]
      if has(ServiceCatalog.brightness) { updates.append((key(ServiceCatalog.brightness), .number(color.brightness))) }
      return updates
    case (.button, .button(let button)):
      let event: ServiceCatalog.SwitchEvent
      switch button.action {
      case .click: event = .singlePress
      case .doubleClick: event = .doublePress
      case .hold: event = .longPress
      case .down, .up: return []
      }
      return [(key(ServiceCatalog.programmableSwitchEvent), .number(event.rawValue))]
    default:
      return []
    }
  }

  static func json(_ value: Value) -> JSONValue? {
    switch value {
    case .bool(let flag): .bool(flag)
    case .integer(let integer): .number(Double(integer))
    case .number(let number): .number(number)
    default: nil
    }
  }

  // MARK: HomeKit -> hub

  /// What to publish for a HomeKit write.
  func publications(for write: ClientSession.HomeKitWrite, values: [String: JSONValue]) -> [(Value, OutputPort)] {
    var result: [(Value, OutputPort)] = []
    let spec = write.spec
    if let output = setOutputs[spec.name], let value = Self.value(write.value, for: spec) {
      result.append((value, output))
    }
    let number = write.value.doubleValue
    if let lightOutput {
      var command = LightCommand()
      switch spec.name {
      case ServiceCatalog.on.name: command.on = write.value.boolValue
      case ServiceCatalog.brightness.name: command.brightness = number
      case ServiceCatalog.colorTemperature.name: command.colorTemperature = number
      case ServiceCatalog.hue.name, ServiceCatalog.saturation.name:
        if hasColor { command.color = color(values) }
      default: break
      }
      if command != LightCommand() { result.append((.light(command), lightOutput)) }
    }
    if let colorOutput,
      [ServiceCatalog.hue.name, ServiceCatalog.saturation.name, ServiceCatalog.brightness.name].contains(spec.name)
    {
      result.append((.color(color(values)), colorOutput))
    }
    return result
  }

  private func color(_ values: [String: JSONValue]) -> HSBColor {
    HSBColor(
      hue: values[ServiceCatalog.hue.name]?.doubleValue ?? 0,
      saturation: values[ServiceCatalog.saturation.name]?.doubleValue ?? 0,
      brightness: values[ServiceCatalog.brightness.name]?.doubleValue ?? 100)
  }

  static func value(_ json: JSONValue, for spec: CharacteristicSpec) -> Value? {
    switch (portType(spec), json) {
    case (.bool, .bool(let flag)): .bool(flag)
    case (.integer, .number(let number)): .integer(Int64(number))
    case (.number, .number(let number)): .number(number)
    default: nil
    }
  }
}
