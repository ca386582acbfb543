import Foundation
import HomebridgeConnection
import HomebridgeProtocol
import PatchbayPluginKit

/// The instance's config:
///
/// ```toml
/// [instances.homekit]
/// plugin = "homebridge-websocket"
/// url = "ws://127.0.0.1:4050"          # optional, this is the default
/// [[instances.homekit.accessories]]
/// name = "ws_morning"
/// service = "Switch"
/// [[instances.homekit.accessories]]
/// name = "desk"
/// service = "Lightbulb"
/// characteristics = ["brightness", "hue", "saturation"]
/// ```
struct HomebridgeConfig: Decodable {
  struct Accessory: Decodable {
    var name: String
    var service: String
    var characteristics: [String]?
    var manufacturer: String?
    var model: String?
    var serialnumber: String?
    var firmwarerevision: String?
  }

  var url: String?
  var accessories: [Accessory]

  static let topLevelKeys: Set<String> = ["url", "accessories"]
  static let accessoryKeys: Set<String> = [
    "name", "service", "characteristics", "manufacturer", "model", "serialnumber", "firmwarerevision",
  ]

  /// Reads and checks the config; every error names the key and what would be right.
  static func load(from context: PluginContext) throws -> (endpoint: WebSocketEndpoint, [AccessoryDefinition]) {
    try checkKeys(context.configJSON)
    let config = try context.config(HomebridgeConfig.self)
    let endpoint: WebSocketEndpoint
    do {
      endpoint = try WebSocketEndpoint(url: config.url ?? "ws://127.0.0.1:4050")
    } catch {
      throw PluginError.config("url: \(error)")
    }
    guard !config.accessories.isEmpty else {
      throw PluginError.config("accessories: list at least one accessory ({ name = \"...\", service = \"Switch\" })")
    }
    var definitions: [AccessoryDefinition] = []
    var portPrefixes: [String: String] = [:]
    for (index, accessory) in config.accessories.enumerated() {
      guard !accessory.name.isEmpty else { throw PluginError.config("accessories.\(index).name must not be empty") }
      if definitions.contains(where: { $0.name == accessory.name }) {
        throw PluginError.config("accessories.\(index).name: '\(accessory.name)' is listed twice")
      }
      let prefix = AccessoryPorts.prefix(for: accessory.name)
      if let other = portPrefixes[prefix] {
        throw PluginError.config(
          "accessories.\(index).name: '\(accessory.name)' and '\(other)' both give port names '\(prefix).*'")
      }
      portPrefixes[prefix] = accessory.name
      do {
        definitions.append(
          try AccessoryDefinition(
            name: accessory.name, service: accessory.service, enabling: accessory.characteristics ?? [],
            manufacturer: accessory.manufacturer, model: accessory.model, serialNumber: accessory.serialnumber,
            firmwareRevision: accessory.firmwarerevision))
      } catch .nameCrashesHomebridge {
        throw PluginError.config(
          "accessories.\(index).name: \(AccessoryDefinition.Problem.nameCrashesHomebridge(accessory.name))")
      } catch .unknownService {
        throw PluginError.config(
          "accessories.\(index).service: unknown service '\(accessory.service)' (one of "
            + ServiceCatalog.serviceNames.joined(separator: ", ") + ")")
      } catch {
        throw PluginError.config("accessories.\(index).characteristics: \(error)")
      }
    }
    return (endpoint, definitions)
  }

  /// Unknown keys are mistakes (a typo would otherwise be silently ignored).
  static func checkKeys(_ json: String) throws {
    guard let root = JSONValue(jsonText: json)?.objectValue else { return }
    for key in root.keys where !topLevelKeys.contains(key) {
      throw PluginError.config("unknown key '\(key)' (known keys: url, accessories)")
    }
    guard case .array(let accessories) = root["accessories"] ?? .null else { return }
    for (index, accessory) in accessories.enumerated() {
      for key in accessory.objectValue?.keys.sorted() ?? [] where !accessoryKeys.contains(key) {
        throw PluginError.config(
          "accessories.\(index): unknown key '\(key)' (known keys: \(accessoryKeys.sorted().joined(separator: ", ")))")
      }
    }
  }
}
