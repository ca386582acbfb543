import PatchbayPluginKit

/// `[home_assistant]`: MQTT discovery of the listed entities.
public struct HomeAssistantSettings: Sendable, Equatable, Decodable {
  public var discoveryPrefix: String
  public var deviceName: String?
  /// The device's `suggested_area` (HA puts it in this area when it first sees it).
  public var area: String?
  /// The device's `configuration_url`: a link in HA to the hub's dashboard.
  public var configurationURL: String?
  public var entities: [HomeAssistantEntity]
  /// Devices of their own, each connected through the hub's (`via_device`).
  public var devices: [HomeAssistantDevice]
  /// Lights are announced with `color_mode: true`, for Home Assistant before 2024.4, which
  /// refuses a JSON light with `supported_color_modes` alone; 2025.3 and later log an error
  /// for the key, so it is off by default.
  public var legacyColorMode: Bool

  enum Keys: String, CodingKey, CaseIterable {
    case discoveryPrefix = "discovery_prefix"
    case deviceName = "device_name"
    case area
    case configurationURL = "configuration_url"
    case entities, devices
    case legacyColorMode = "legacy_color_mode"
  }

  public init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    discoveryPrefix = try table.decodeIfPresent(String.self, forKey: .discoveryPrefix) ?? "homeassistant"
    if let problem = TopicFilter.problemAsTopicName(discoveryPrefix) {
      throw decoder.mistake("discovery_prefix", problem)
    }
    deviceName = try table.decodeIfPresent(String.self, forKey: .deviceName)
    area = try table.decodeIfPresent(String.self, forKey: .area)
    configurationURL = try table.decodeIfPresent(String.self, forKey: .configurationURL)
    legacyColorMode = try table.decodeIfPresent(Bool.self, forKey: .legacyColorMode) ?? false
    if let url = configurationURL, !(url.hasPrefix("http://") || url.hasPrefix("https://")) || url.count < 10 {
      throw decoder.mistake(
        "configuration_url", "'\(url)' must be an http:// or https:// address, such as the dashboard's http://hub:8080/"
      )
    }
    // Every wrong device class at once (one per line, each a problem for `patchbay check`):
    // they are typically several, copied from one example.
    let classes = try table.decodeIfPresent([DeviceClassOnly].self, forKey: .entities) ?? []
    let problems = classes.enumerated().compactMap { index, entity -> String? in
      guard let deviceClass = entity.deviceClass, let component = entity.component,
        let problem = HomeAssistantEntity.deviceClassProblem(deviceClass, for: component)
      else { return nil }
      return "\(decoder.keyPrefix)entities.\(index).device_class \(problem)"
    }
    if !problems.isEmpty { throw PluginError.config(problems.joined(separator: "\n")) }
    entities = try table.decodeIfPresent([HomeAssistantEntity].self, forKey: .entities) ?? []
    var names: Set<String> = []
    for (index, entity) in entities.enumerated() where !names.insert(entity.name).inserted {
      throw decoder.mistake("entities.\(index).name", "'\(entity.name)' is used twice")
    }
    devices = try table.decodeIfPresent([HomeAssistantDevice].self, forKey: .devices) ?? []
    var deviceNames: [String] = []
    for (index, device) in devices.enumerated() {
      if deviceNames.contains(device.name) {
        throw decoder.mistake("devices.\(index).name", "'\(device.name)' is used twice")
      }
      deviceNames.append(device.name)
    }
    for (index, entity) in entities.enumerated() {
      if let device = entity.device, !deviceNames.contains(device) {
        let hint = Spelling.closest(to: device, in: deviceNames).map { " (did you mean '\($0)'?)" } ?? ""
        throw decoder.mistake(
          "entities.\(index).device",
          "'\(device)' is not a device of [[home_assistant.devices]]\(hint)"
            + (deviceNames.isEmpty
              ? "; define it there, or leave device out (the hub's)"
              : "; one of \(deviceNames.joined(separator: ", "))"))
      }
      if !devices.isEmpty, entity.name == HomeAssistantDiscovery.hubStatusName {
        throw decoder.mistake(
          "entities.\(index).name", "'\(entity.name)' is the hub's own status entity when devices are defined")
      }
    }
  }
}

/// An entity's component and device class only, read before the whole entity so that every
/// wrong device class is reported, not the first.
private struct DeviceClassOnly: Decodable {
  var component: HomeAssistantEntity.Component?
  var deviceClass: String?

  init(from decoder: Decoder) throws {
    let table = try decoder.container(keyedBy: AnyConfigKey.self)
    // A component or class that is not a string is the whole entity's decoding to report.
    let component = try? table.decodeIfPresent(String.self, forKey: AnyConfigKey("component"))
    self.component = component.flatMap { HomeAssistantEntity.Component(rawValue: $0) }
    deviceClass = try? table.decodeIfPresent(String.self, forKey: AnyConfigKey("device_class"))
  }
}
