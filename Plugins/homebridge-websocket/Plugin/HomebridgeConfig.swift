import HomebridgeConnection
import HomebridgeProtocol
import PatchbayPluginKit

/// The instance's config:
///
/// ```toml
/// [instances.homekit]
/// plugin = "homebridge-websocket"
/// url = "ws://127.0.0.1:4050"          # optional, this is the default
/// probe_interval = 15                  # optional: seconds between checks that HomeKit's traffic comes here
/// reclaim_delay = 60                   # optional: seconds before taking the traffic back from another client
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
    enum CodingKeys: String, CodingKey, CaseIterable {
      case name, service, characteristics, manufacturer, model, serialnumber, firmwarerevision
    }

    var name: String
    var service: String
    var characteristics: [String]?
    var manufacturer: String?
    var model: String?
    var serialnumber: String?
    var firmwarerevision: String?

    init(from decoder: Decoder) throws {
      try decoder.refuseUnknownKeys(CodingKeys.self)
      let table = try decoder.container(keyedBy: CodingKeys.self)
      name = try table.decode(String.self, forKey: .name)
      service = try table.decode(String.self, forKey: .service)
      characteristics = try table.decodeIfPresent([String].self, forKey: .characteristics)
      manufacturer = try table.decodeIfPresent(String.self, forKey: .manufacturer)
      model = try table.decodeIfPresent(String.self, forKey: .model)
      serialnumber = try table.decodeIfPresent(String.self, forKey: .serialnumber)
      firmwarerevision = try table.decodeIfPresent(String.self, forKey: .firmwarerevision)
    }
  }

  enum CodingKeys: String, CodingKey, CaseIterable {
    case url, accessories
    case probeInterval = "probe_interval"
    case reclaimDelay = "reclaim_delay"
  }

  var url: String?
  var accessories: [Accessory]
  var probeInterval: Int?
  var reclaimDelay: Int?

  init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(CodingKeys.self)
    let table = try decoder.container(keyedBy: CodingKeys.self)
    url = try table.decodeIfPresent(String.self, forKey: .url)
    accessories = try table.decode([Accessory].self, forKey: .accessories)
    probeInterval = try table.decodeIfPresent(Int.self, forKey: .probeInterval, in: 1...300, unit: " s")
    reclaimDelay = try table.decodeIfPresent(Int.self, forKey: .reclaimDelay, in: 1...3600, unit: " s")
  }

  /// The client's timing with the config's probe interval and reclaim delay.
  var timing: HomebridgeClient.Timing {
    var timing = HomebridgeClient.Timing()
    if let probeInterval { timing.trafficProbeInterval = .seconds(Int64(probeInterval)) }
    if let reclaimDelay { timing.reclaimDelay = .seconds(Int64(reclaimDelay)) }
    return timing
  }

  /// Reads and checks the config; every error names the key and what would be right.
  static func load(from context: PluginContext) throws -> (
    endpoint: WebSocketEndpoint, [AccessoryDefinition], timing: HomebridgeClient.Timing
  ) {
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
    return (endpoint, definitions, config.timing)
  }
}
