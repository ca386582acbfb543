import PatchbayValues

/// One accessory a client announces with `add`: its name, service and enabled characteristics.
public struct AccessoryDefinition: Sendable, Hashable {
  public var name: String
  public var service: ServiceSpec
  /// Required characteristics first, then the enabled optional ones, in catalog order.
  public var characteristics: [CharacteristicSpec]
  public var manufacturer: String?
  public var model: String?
  public var serialNumber: String?
  public var firmwareRevision: String?

  /// Why a definition is refused; the plugin turns these into config errors naming the key.
  public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
    /// A name the real server crashes on (see `PrototypePropertyNames`).
    case nameCrashesHomebridge(String)
    case unknownService(String)
    case unknownCharacteristic(String, service: String, allowed: [String])

    public var description: String {
      switch self {
      case .nameCrashesHomebridge(let name):
        "'\(name)' is a property every JavaScript object has; homebridge-websocket 0.2.2 crashes on it; "
          + "choose another name"
      case .unknownService(let name):
        "unknown service '\(name)' (one of \(ServiceCatalog.serviceNames.joined(separator: ", ")))"
      case .unknownCharacteristic(let name, let service, let allowed):
        allowed.isEmpty
          ? "service \(service) has no optional characteristics, '\(name)' cannot be enabled"
          : "'\(name)' is not an optional characteristic of \(service) (one of \(allowed.joined(separator: ", ")))"
      }
    }
  }

  public init(
    name: String, service serviceName: String, enabling optionalNames: [String] = [], manufacturer: String? = nil,
    model: String? = nil, serialNumber: String? = nil, firmwareRevision: String? = nil
  ) throws(Problem) {
    guard !PrototypePropertyNames.contains(name) else { throw .nameCrashesHomebridge(name) }
    guard let service = ServiceCatalog.service(named: serviceName) else { throw .unknownService(serviceName) }
    var enabled: Set<String> = []
    for optionalName in optionalNames {
      guard let spec = service.optionalCharacteristic(matching: optionalName) else {
        throw .unknownCharacteristic(
          optionalName, service: service.name, allowed: service.optional.map(\.snakeName))
      }
      enabled.insert(spec.name)
    }
    self.name = name
    self.service = service
    characteristics = service.required + service.optional.filter { enabled.contains($0.name) }
    self.manufacturer = manufacturer
    self.model = model
    self.serialNumber = serialNumber
    self.firmwareRevision = firmwareRevision
  }

  public func characteristic(named name: String) -> CharacteristicSpec? {
    characteristics.first { $0.name == name }
  }

  /// The `add` payload: optional characteristics as `"Brightness": "default"`.
  public var addPayload: JSONValue {
    var members: [String: JSONValue] = ["name": .string(name), "service": .string(service.name)]
    for spec in characteristics where !service.required.contains(spec) {
      members[spec.name] = .string("default")
    }
    if let manufacturer { members["manufacturer"] = .string(manufacturer) }
    if let model { members["model"] = .string(model) }
    if let serialNumber { members["serialnumber"] = .string(serialNumber) }
    if let firmwareRevision { members["firmwarerevision"] = .string(firmwareRevision) }
    return .sortedObject(members)
  }
}
