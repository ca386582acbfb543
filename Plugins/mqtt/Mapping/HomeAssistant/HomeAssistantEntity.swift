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
/// subtype = "button_1"        # button: the trigger subtype (default button_1)
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

  /// The input port: a value from the hub shown in HA.
  public var statePort: String { component == .button ? "ha.\(name).press" : "ha.\(name).state" }
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
  }

  public init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    name = try table.decode(String.self, forKey: .name)
    guard !name.isEmpty, name.count <= 48,
      name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
    else {
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
    if let deviceClass {
      guard let known = HomeAssistantVocabulary.deviceClasses(for: component) else {
        throw decoder.mistake("device_class", "applies to sensor, binary_sensor and switch only")
      }
      guard known.contains(deviceClass) else {
        let hint = Spelling.closest(to: deviceClass, in: known).map { " (did you mean '\($0)'?)" } ?? ""
        throw decoder.mistake(
          "device_class",
          "'\(deviceClass)' is not a Home Assistant \(component.rawValue) device class\(hint); "
            + "see https://www.home-assistant.io/integrations/\(component.rawValue)/#device-class")
      }
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
    subtype = subtypeName ?? "button_1"
  }
}
