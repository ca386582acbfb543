import PatchbayPluginKit
import PatchbayValues

/// One entity announced to Home Assistant through MQTT discovery, with the ports that feed it
/// (`ha.NAME.state`: the hub's value shown in HA) and take its commands (`ha.NAME.command`).
///
/// ```toml
/// [[instances.mqtt.home_assistant.entities]]
/// name = "desk_lamp"          # object id, and the ports ha.desk_lamp.*
/// title = "Desk lamp"         # shown in HA (default: name)
/// component = "switch"        # switch, light, sensor, binary_sensor, button
/// device_class = "temperature"  # sensor, binary_sensor, switch (outlet), optional
/// state_class = "measurement" # sensor, optional
/// unit = "°C"                 # sensor, optional
/// type = "number"             # sensor: number (default), integer or text
/// subtype = "bedside"         # button: the trigger subtype (default: name)
/// precision = 1               # sensor: suggested_display_precision, digits after the point
/// expire_after = 600          # sensor, binary_sensor: seconds without a value before unavailable
/// icon = "mdi:lamp"           # any but button
/// entity_category = "diagnostic"  # config (switch, light) or diagnostic
/// color_modes = ["hs", "color_temp"]  # light: or ["brightness"], ["onoff"], ["hs"], ["color_temp"]
/// min_mireds = 153            # light with color_temp: the bulb's range (default 153...500)
/// max_mireds = 500
/// optimistic = false          # switch, light: HA shows a command at once, without feedback
/// device = "bedside"          # a device of [[home_assistant.devices]] (default: the hub's)
/// available = true            # any but button: port ha.NAME.available (false: unavailable in HA)
/// ```
public struct HomeAssistantEntity: Sendable, Equatable {
  public enum Component: String, Sendable, CaseIterable {
    case `switch`, light, sensor
    case binarySensor = "binary_sensor"
    case button
  }

  public var name: String
  public var title: String
  public var component: Component
  public var deviceClass: String?
  public var unit: String?
  /// `measurement`, `total` or `total_increasing` (sensor): HA keeps long-term statistics.
  public var stateClass: String?
  public var sensorType: ValueType
  public var subtype: String
  /// `suggested_display_precision` (sensor).
  public var precision: Int?
  /// `expire_after` in seconds (sensor, binary_sensor).
  public var expireAfter: Int?
  public var icon: String?
  /// `config` or `diagnostic`: HA lists the entity apart from the device's controls.
  public var entityCategory: String?
  /// A light's `supported_color_modes`, as HA takes them: `onoff` or `brightness` alone, or
  /// `hs` and `color_temp` (either or both).
  public var colorModes: [String] = HomeAssistantEntity.defaultColorModes
  /// The colour temperatures the light announces and the hub sends or takes, in mired.
  public var mireds: ClosedRange<Double> = HomeAssistantEntity.defaultMireds
  /// HA updates the state itself after a command instead of waiting for the hub's value.
  public var optimistic: Bool?
  /// The name of the device (`[[home_assistant.devices]]`) it belongs to; nil: the hub's.
  public var device: String?
  /// Whether it has an availability of its own (`ha.NAME.available`), beside the hub's.
  public var available = false

  public static let defaultColorModes = ["hs", "color_temp"]
  /// HA's own default range for a light's `min_mireds`/`max_mireds`.
  public static let defaultMireds = 153.0...500.0
  /// The colour-mode sets HA takes (its `valid_supported_color_modes`).
  static let colorModeSets: [[String]] = [["onoff"], ["brightness"], ["hs"], ["color_temp"], ["hs", "color_temp"]]

  /// A name that goes into HA ids and topic levels (an entity's, a device's): 1 to 48 of
  /// a-z, 0-9 and _.
  static func isIDPart(_ name: String) -> Bool {
    !name.isEmpty && name.count <= 48
      && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
  }

  /// The input port: a value from the hub shown in HA.
  public var statePort: String { component == .button ? "ha.\(name).press" : "ha.\(name).state" }
  /// The input port for the entity's own availability (route a plugin's `connected` here).
  public var availablePort: String? { available ? "ha.\(name).available" : nil }
  /// The output port for HA's commands (switch and light only).
  public var commandPort: String? { component == .switch || component == .light ? "ha.\(name).command" : nil }

  public var stateType: ValueType {
    switch component {
    case .switch, .binarySensor: .bool
    case .light: .light
    case .sensor: sensorType
    case .button: .button
    }
  }
}

extension HomeAssistantEntity: Decodable {
  enum Keys: String, CodingKey, CaseIterable {
    case name, title, component
    case deviceClass = "device_class"
    case unit, type, subtype
    case stateClass = "state_class"
    case precision, icon, optimistic
    case expireAfter = "expire_after"
    case entityCategory = "entity_category"
    case colorModes = "color_modes"
    case minMireds = "min_mireds"
    case maxMireds = "max_mireds"
    case device, available
  }

  public init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    name = try table.decode(String.self, forKey: .name)
    guard Self.isIDPart(name) else {
      throw decoder.mistake("name", "'\(name)' must be 1 to 48 of a-z, 0-9 and _ (it is the object id and names ports)")
    }
    title = try table.decodeIfPresent(String.self, forKey: .title) ?? name
    let componentName = try table.decode(String.self, forKey: .component)
    guard let component = Component(rawValue: componentName) else {
      let names = Component.allCases.map(\.rawValue)
      let hint = Spelling.closest(to: componentName, in: names).map { " (did you mean '\($0)'?)" } ?? ""
      throw decoder.mistake(
        "component", "'\(componentName)' is not supported\(hint); one of \(names.joined(separator: ", "))")
    }
    self.component = component
    deviceClass = try table.decodeIfPresent(String.self, forKey: .deviceClass)
    unit = try table.decodeIfPresent(String.self, forKey: .unit)
    if let deviceClass, let problem = Self.deviceClassProblem(deviceClass, for: component) {
      throw decoder.mistake("device_class", problem)
    }
    stateClass = try table.decodeIfPresent(String.self, forKey: .stateClass)
    if let stateClass {
      guard component == .sensor else { throw decoder.mistake("state_class", "applies to sensor only") }
      let known = HomeAssistantVocabulary.stateClasses
      guard known.contains(stateClass) else {
        let hint = Spelling.closest(to: stateClass, in: known).map { " (did you mean '\($0)'?)" } ?? ""
        throw decoder.mistake(
          "state_class", "'\(stateClass)' is not a state class\(hint); one of \(known.joined(separator: ", "))")
      }
    }
    if unit != nil && component != .sensor { throw decoder.mistake("unit", "applies to sensor only") }
    if let unit, let deviceClass, let units = HomeAssistantVocabulary.units[deviceClass], !units.contains(unit) {
      let hint = Spelling.closest(to: unit, in: units).map { " (did you mean '\($0)'?)" } ?? ""
      throw decoder.mistake(
        "unit", "'\(unit)' is not a unit HA takes for \(deviceClass)\(hint); one of \(units.joined(separator: ", "))")
    }
    let typeName = try table.decodeIfPresent(String.self, forKey: .type)
    if typeName != nil && component != .sensor { throw decoder.mistake("type", "applies to sensor only") }
    switch typeName ?? "number" {
    case "number": sensorType = .number
    case "integer": sensorType = .integer
    case "text": sensorType = .text
    case let other: throw decoder.mistake("type", "'\(other)' must be number, integer or text")
    }
    let subtypeName = try table.decodeIfPresent(String.self, forKey: .subtype)
    if subtypeName != nil && component != .button { throw decoder.mistake("subtype", "applies to button only") }
    // The entity's own name by default: several buttons with one default subtype could not be
    // told apart in HA's automation editor.
    subtype = subtypeName ?? name
    try decodePresentation(table, decoder)
    try decodeLight(table, decoder)
  }

  /// What is wrong with `deviceClass` on a `component` and what would be right; nil: nothing.
  static func deviceClassProblem(_ deviceClass: String, for component: Component) -> String? {
    guard let known = HomeAssistantVocabulary.deviceClasses(for: component) else {
      return "applies to sensor, binary_sensor and switch only"
    }
    guard !known.contains(deviceClass) else { return nil }
    let hint = Spelling.closest(to: deviceClass, in: known).map { " (did you mean '\($0)'?)" } ?? ""
    return "'\(deviceClass)' is not a Home Assistant \(component.rawValue) device class\(hint); "
      + "see https://www.home-assistant.io/integrations/\(component.rawValue)/#device-class"
  }

  /// precision, expire_after, icon, entity_category, optimistic: what HA shows and how.
  private mutating func decodePresentation(_ table: KeyedDecodingContainer<Keys>, _ decoder: Decoder) throws {
    precision = try table.decodeIfPresent(Int.self, forKey: .precision)
    if let precision {
      guard component == .sensor else { throw decoder.mistake("precision", "applies to sensor only") }
      guard (0...10).contains(precision) else {
        throw decoder.mistake("precision", "\(precision) must be 0 to 10 digits after the decimal point")
      }
    }
    expireAfter = try table.decodeIfPresent(Int.self, forKey: .expireAfter)
    if let expireAfter {
      guard component == .sensor || component == .binarySensor else {
        throw decoder.mistake("expire_after", "applies to sensor and binary_sensor only")
      }
      guard expireAfter > 0 else { throw decoder.mistake("expire_after", "\(expireAfter) must be seconds above 0") }
    }
    icon = try table.decodeIfPresent(String.self, forKey: .icon)
    if let icon {
      guard component != .button else { throw decoder.mistake("icon", "a button's triggers have no icon") }
      guard icon.hasPrefix("mdi:"), icon.count > 4 else {
        throw decoder.mistake("icon", "'\(icon)' must be a Material Design icon such as \"mdi:lamp\"")
      }
    }
    entityCategory = try table.decodeIfPresent(String.self, forKey: .entityCategory)
    if let entityCategory {
      // HA refuses `config` on sensors and binary sensors (they cannot be set).
      let allowed = component == .switch || component == .light ? ["config", "diagnostic"] : ["diagnostic"]
      guard component != .button, allowed.contains(entityCategory) else {
        throw decoder.mistake(
          "entity_category",
          "'\(entityCategory)' is not an entity category HA takes for a \(component.rawValue); "
            + (component == .button ? "a button's triggers have none" : "one of \(allowed.joined(separator: ", "))"))
      }
    }
    optimistic = try table.decodeIfPresent(Bool.self, forKey: .optimistic)
    if optimistic != nil && component != .switch && component != .light {
      throw decoder.mistake("optimistic", "applies to switch and light only")
    }
    device = try table.decodeIfPresent(String.self, forKey: .device)
    available = try table.decodeIfPresent(Bool.self, forKey: .available) ?? false
    if available && component == .button {
      throw decoder.mistake("available", "a button's triggers have no availability in HA")
    }
  }

  /// color_modes and the mired range of a light.
  private mutating func decodeLight(_ table: KeyedDecodingContainer<Keys>, _ decoder: Decoder) throws {
    let modes = try table.decodeIfPresent([String].self, forKey: .colorModes)
    let minimum = try table.decodeIfPresent(Int.self, forKey: .minMireds)
    let maximum = try table.decodeIfPresent(Int.self, forKey: .maxMireds)
    guard component == .light else {
      for (key, given) in [
        ("color_modes", modes != nil), ("min_mireds", minimum != nil), ("max_mireds", maximum != nil),
      ]
      where given {
        throw decoder.mistake(key, "applies to light only")
      }
      return
    }
    if let modes {
      let sets = Self.colorModeSets.map { $0.joined(separator: ", ") }
      guard let known = Self.colorModeSets.first(where: { Set($0) == Set(modes) && $0.count == modes.count }) else {
        throw decoder.mistake(
          "color_modes", "\(modes) is not a set HA takes; one of [\(sets.joined(separator: "], ["))]")
      }
      colorModes = known
    }
    if minimum != nil || maximum != nil {
      guard colorModes.contains("color_temp") else {
        throw decoder.mistake("min_mireds", "applies to a light whose color_modes include color_temp")
      }
      let low = Double(minimum ?? Int(Self.defaultMireds.lowerBound))
      let high = Double(maximum ?? Int(Self.defaultMireds.upperBound))
      let limits = Zigbee2MQTTLight.miredRange
      guard limits.contains(low), limits.contains(high), low < high else {
        throw decoder.mistake(
          minimum != nil ? "min_mireds" : "max_mireds",
          "\(Int(low))...\(Int(high)) must be a range within \(Int(limits.lowerBound))...\(Int(limits.upperBound)) mired, "
            + "min_mireds below max_mireds")
      }
      mireds = low...high
    }
  }
}
