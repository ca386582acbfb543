import Crypto
import HAP
import HomeKitProtocol
import PatchbayValues

/// The bridge's accessory database: aid 1 is the bridge (Accessory Information, Protocol
/// Information "1.1.0"), then one bridged accessory per configured one, each with Accessory
/// Information and its service. Ids come from `AccessoryIdentifiers`, so they are stable.
struct AccessoryDatabase: Sendable {
  /// Where a characteristic lives and what it is.
  struct Entry: Sendable {
    /// Index into `accessories` of the config; nil for the bridge.
    var accessory: Int?
    var characteristic: Characteristic
    /// Accessory Information's text values (never change while running).
    var fixedValue: JSONValue?
  }

  struct Service: Sendable {
    var iid: Int
    var type: String
    var primary: Bool
    var characteristics: [HAPCharacteristicID]
  }

  struct AccessoryLayout: Sendable {
    var aid: Int
    var services: [Service]
  }

  static let accessoryInformation = "3E"
  static let protocolInformation = "A2"
  static let protocolVersion = "1.1.0"
  static let manufacturer = "patchbay"

  private(set) var layouts: [AccessoryLayout] = []
  private(set) var entries: [HAPCharacteristicID: Entry] = [:]
  /// Config accessory index, then its service's characteristic type -> id.
  private(set) var ids: [[String: HAPCharacteristicID]] = []

  /// Lays the database out, giving new ids in `identifiers` to what is new.
  init(
    bridgeName: String, accessories: [HomeKitConfig.Accessory], serialNumber: String,
    identifiers: inout AccessoryIdentifiers
  ) {
    var bridge = AccessoryLayout(aid: AccessoryIdentifiers.bridgeAID, services: [])
    bridge.services.append(
      information(
        name: bridgeName, model: "patchbay bridge", serial: serialNumber, accessory: nil, aid: bridge.aid,
        key: nil, identifiers: &identifiers))
    var protocolService = Service(
      iid: identifiers.iid(Self.protocolInformation, in: nil), type: Self.protocolInformation, primary: false,
      characteristics: [])
    let version = HAPCharacteristicID(
      aid: bridge.aid,
      iid: identifiers.iid(
        AccessoryIdentifiers.characteristicKey(Characteristic.version.type, of: Self.protocolInformation), in: nil))
    protocolService.characteristics.append(version)
    entries[version] = Entry(accessory: nil, characteristic: .version, fixedValue: .string(Self.protocolVersion))
    bridge.services.append(protocolService)
    layouts.append(bridge)

    for (index, accessory) in accessories.enumerated() {
      let aid = identifiers.aid(for: accessory.name)
      var layout = AccessoryLayout(aid: aid, services: [])
      layout.services.append(
        information(
          name: accessory.name, model: accessory.model ?? accessory.service.homeKitName,
          serial: "\(serialNumber)-\(aid)", manufacturer: accessory.manufacturer, accessory: index, aid: aid,
          key: accessory.name, identifiers: &identifiers))
      let serviceType = accessory.service.type
      var service = Service(
        iid: identifiers.iid(AccessoryIdentifiers.serviceKey(serviceType), in: accessory.name), type: serviceType,
        primary: true, characteristics: [])
      var byType: [String: HAPCharacteristicID] = [:]
      for characteristic in accessory.characteristics + [.name] {
        let id = HAPCharacteristicID(
          aid: aid,
          iid: identifiers.iid(
            AccessoryIdentifiers.characteristicKey(characteristic.type, of: serviceType), in: accessory.name))
        service.characteristics.append(id)
        entries[id] = Entry(
          accessory: index, characteristic: characteristic,
          fixedValue: characteristic == .name ? .string(accessory.name) : nil)
        byType[characteristic.type] = id
      }
      layout.services.append(service)
      layouts.append(layout)
      ids.append(byType)
    }
  }

  private mutating func information(
    name: String, model: String, serial: String, manufacturer: String? = nil, accessory: Int?, aid: Int, key: String?,
    identifiers: inout AccessoryIdentifiers
  ) -> Service {
    let type = Self.accessoryInformation
    var service = Service(iid: identifiers.iid(type, in: key), type: type, primary: false, characteristics: [])
    let values: [(Characteristic, JSONValue?)] = [
      (.identify, nil), (.manufacturer, .string(manufacturer ?? Self.manufacturer)), (.model, .string(model)),
      (.name, .string(name)), (.serialNumber, .string(serial)),
      (.firmwareRevision, .string(PatchbayVersion.current)),
    ]
    for (characteristic, value) in values {
      let id = HAPCharacteristicID(
        aid: aid, iid: identifiers.iid(AccessoryIdentifiers.characteristicKey(characteristic.type, of: type), in: key))
      service.characteristics.append(id)
      entries[id] = Entry(accessory: accessory, characteristic: characteristic, fixedValue: value)
    }
    return service
  }

  /// The id of the characteristic of `type` of config accessory `index`.
  func id(of type: String, accessory index: Int) -> HAPCharacteristicID? { ids[index][type] }

  /// `{"accessories":[...]}` as GET /accessories answers; `value` gives each readable
  /// characteristic's current value (nil: the database without values, for the digest).
  func json(value: ((HAPCharacteristicID) -> JSONValue?)?) -> JSONValue {
    .object([
      (
        "accessories",
        .array(
          layouts.map { layout in
            .object([
              ("aid", .integer(Int64(layout.aid))),
              (
                "services",
                .array(
                  layout.services.map { service in
                    var members: [(String, JSONValue)] = [
                      ("iid", .integer(Int64(service.iid))), ("type", .string(service.type)),
                    ]
                    if service.primary { members.append(("primary", .bool(true))) }
                    members.append(
                      (
                        "characteristics",
                        .array(
                          service.characteristics.map { id in
                            describe(
                              id, value: value.flatMap { $0(id) } ?? entries[id]?.fixedValue, withValue: value != nil)
                          })
                      ))
                    return .object(members)
                  })
              ),
            ])
          })
      )
    ])
  }

  /// One characteristic's object: iid, type, perms, format, its metadata and (when readable) value.
  func describe(_ id: HAPCharacteristicID, value: JSONValue?, withValue: Bool) -> JSONValue {
    guard let characteristic = entries[id]?.characteristic else { return .null }
    var members: [(String, JSONValue)] = [("iid", .integer(Int64(id.iid)))]
    members += metadata(characteristic, fields: [.type, .perms, .meta])
    if withValue, characteristic.permissions.contains("pr") { members.append(("value", value ?? .null)) }
    return .object(members)
  }

  /// What a read asks for beyond the value: type, perms, and format/unit/range (meta).
  func metadata(_ characteristic: Characteristic, fields: HAPReadFields) -> [(String, JSONValue)] {
    var members: [(String, JSONValue)] = []
    if fields.contains(.type) { members.append(("type", .string(characteristic.type))) }
    if fields.contains(.perms) { members.append(("perms", .array(characteristic.permissions.map { .string($0) }))) }
    if fields.contains(.meta) {
      members.append(("format", .string(characteristic.format.rawValue)))
      if let unit = characteristic.unit { members.append(("unit", .string(unit))) }
      let integral = characteristic.format != .float
      func number(_ value: Double) -> JSONValue { integral ? .integer(Int64(value)) : .number(value) }
      if let minimum = characteristic.minimum { members.append(("minValue", number(minimum))) }
      if let maximum = characteristic.maximum { members.append(("maxValue", number(maximum))) }
      if let step = characteristic.step { members.append(("minStep", number(step))) }
      if characteristic.format == .string { members.append(("maxLen", .integer(64))) }
    }
    return members
  }

  /// SHA-256 (hex) of the database without values: what `c#` follows.
  var digest: String {
    SHA256.hash(data: Array(json(value: nil).description.utf8)).map {
      ($0 < 16 ? "0" : "") + String($0, radix: 16)
    }.joined()
  }
}
