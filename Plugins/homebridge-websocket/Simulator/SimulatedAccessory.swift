import HomebridgeProtocol
import PatchbayValues

/// An accessory as the simulated Homebridge holds it: service, characteristics (with any
/// props the `add` set), accessory information, and the cached values, blank until a client
/// sets them (values are never persisted, as in the real plugin).
struct SimulatedAccessory: Sendable, Hashable {
  var name: String
  var service: ServiceSpec
  var characteristics: [CharacteristicSpec]
  /// The optional characteristics as the `add` gave them: "default" or a props object.
  var enabledOptional: [String: JSONValue]
  var information: [String: String]
  var values: [String: JSONValue] = [:]

  static let informationKeys = ["manufacturer", "model", "serialnumber", "firmwarerevision"]

  init(name: String, service: ServiceSpec, payload: [String: JSONValue]) {
    self.name = name
    self.service = service
    var characteristics = service.required
    var enabled: [String: JSONValue] = [:]
    for spec in service.optional {
      guard let setting = payload[spec.name] else { continue }
      enabled[spec.name] = setting
      characteristics.append(setting.objectValue.map { spec.with(props: $0) } ?? spec)
    }
    self.characteristics = characteristics
    enabledOptional = enabled
    var information: [String: String] = [:]
    for key in Self.informationKeys {
      if let text = payload[key]?.stringValue { information[key] = text }
    }
    self.information = information
  }

  func characteristic(named name: String) -> CharacteristicSpec? {
    characteristics.first { $0.name == name }
  }

  /// What the `accessories` answer shows: `"blank"` for a value nobody has set.
  var summary: JSONValue {
    var shown: [String: JSONValue] = [:]
    for spec in characteristics { shown[spec.name] = values[spec.name] ?? .string("blank") }
    return .sortedObject(["service": .string(service.name), "characteristics": .sortedObject(shown)])
  }

  /// The add payload that recreates it (for the cache file).
  var addPayload: [String: JSONValue] {
    var payload = enabledOptional
    payload["name"] = .string(name)
    payload["service"] = .string(service.name)
    for (key, value) in information { payload[key] = .string(value) }
    return payload
  }
}
