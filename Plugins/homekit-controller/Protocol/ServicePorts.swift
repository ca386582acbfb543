import HAP
import PatchbayValues

/// One HAP service the plugin turns into hub ports: which kind, the ports' name prefix, and the
/// characteristics it reads and writes (by HAP short type, e.g. "25" for On).
package struct ServicePorts: Sendable, Equatable {
  package enum Kind: String, Sendable, CaseIterable {
    case light, outlet, `switch`, contact, motion, temperature, humidity, button, battery
    /// Any other service: each readable characteristic becomes a typed output of its own.
    case other

    /// HAP service types (short form) and the kind each becomes.
    static let byServiceType: [String: Kind] = [
      "43": .light, "47": .outlet, "49": .switch, "80": .contact, "85": .motion, "8A": .temperature,
      "82": .humidity, "89": .button, "96": .battery,
    ]
  }

  package var kind: Kind
  /// `lamp` for the ports `lamp.light` and `lamp.state`: the accessory's name, slugged.
  package var name: String
  package var aid: Int
  /// HAP characteristic short type → iid, for the characteristics this kind uses.
  package var characteristics: [String: Int]
  /// For `.other`: the readable characteristics, each an output `NAME.READING`.
  package var readings: [Reading] = []

  /// One readable characteristic of an `.other` service.
  package struct Reading: Sendable, Equatable {
    package var type: String
    /// `current_position`: from the characteristic's type or its description.
    package var name: String
    package var valueType: ValueType
    /// Whether the accessory sends events for it (else it is read on every connect only).
    package var events: Bool
  }

  package func id(_ type: String) -> HAPCharacteristicID? {
    characteristics[type].map { HAPCharacteristicID(aid: aid, iid: $0) }
  }

  /// Every characteristic id the plugin reads and follows.
  package var ids: [HAPCharacteristicID] { characteristics.keys.sorted().compactMap(id) }

  /// The ids the plugin subscribes to: all but readings without events.
  package var subscribed: [HAPCharacteristicID] {
    let quiet = Set(readings.filter { !$0.events }.map(\.type))
    return characteristics.keys.sorted().filter { !quiet.contains($0) }.compactMap(id)
  }
}

/// The services of an accessory database (`GET /accessories`) as ports, in aid order, named
/// the same way every time for the same database (so names stay across restarts).
package enum ServiceLayout {
  /// HAP characteristic types (short) each kind uses.
  package static let characteristicTypes: [ServicePorts.Kind: [String]] = [
    .light: [HAPType.on, HAPType.brightness, HAPType.hue, HAPType.saturation, HAPType.colorTemperature],
    .outlet: [HAPType.on], .switch: [HAPType.on], .contact: ["6A"], .motion: ["22"], .temperature: ["11"],
    .humidity: ["10"], .button: ["73"], .battery: ["68"],
  ]

  package static func services(in database: JSONValue) -> [ServicePorts] {
    var result: [ServicePorts] = []
    var taken: Set<String> = []
    let accessories = (database["accessories"]?.arrayValue ?? []).sorted {
      ($0["aid"]?.integerValue ?? 0) < ($1["aid"]?.integerValue ?? 0)
    }
    for accessory in accessories {
      guard let aid = accessory["aid"]?.integerValue else { continue }
      let services = accessory["services"]?.arrayValue ?? []
      let accessoryName = name(of: accessory)
      let mapped = services.compactMap(mapped)
      let base = slug(accessoryName ?? "") ?? "accessory_\(aid)"
      for service in mapped {
        // One service: the accessory's name; several: the kind after it (lamp_light, lamp_battery).
        let wanted = mapped.count == 1 ? base : "\(base)_\(service.kindName)"
        var name = wanted
        var suffix = 2
        while taken.contains(name) {
          name = wanted + "_\(suffix)"
          suffix += 1
        }
        taken.insert(name)
        result.append(
          ServicePorts(
            kind: service.kind, name: name, aid: aid, characteristics: service.characteristics,
            readings: service.readings))
      }
    }
    return result
  }

  /// One service of the database as the plugin uses it; nil for one it has nothing to make of
  /// (the information and protocol services, or nothing readable).
  package static func mapped(
    _ service: JSONValue
  ) -> (kind: ServicePorts.Kind, kindName: String, characteristics: [String: Int], readings: [ServicePorts.Reading])? {
    guard let type = shortType(service["type"]), !HAPNames.ignoredServices.contains(type) else { return nil }
    let items = service["characteristics"]?.arrayValue ?? []
    if let kind = ServicePorts.Kind.byServiceType[type] {
      var characteristics: [String: Int] = [:]
      for item in items {
        if let type = shortType(item["type"]), let iid = item["iid"]?.integerValue,
          characteristicTypes[kind]?.contains(type) == true
        {
          characteristics[type] = iid
        }
      }
      return characteristics.isEmpty ? nil : (kind, kind.rawValue, characteristics, [])
    }
    var characteristics: [String: Int] = [:]
    var readings: [ServicePorts.Reading] = []
    var names: Set<String> = []
    for item in items {
      guard let characteristic = shortType(item["type"]), characteristic != HAPNames.name,
        let iid = item["iid"]?.integerValue, let perms = item["perms"]?.arrayValue?.compactMap(\.stringValue),
        perms.contains("pr"), let format = item["format"]?.stringValue, let valueType = valueType(format)
      else { continue }
      var name =
        HAPNames.characteristics[characteristic] ?? item["description"]?.stringValue.flatMap(words).flatMap(slug)
        ?? "c_\(tag(characteristic))"
      if names.contains(name) { name += "_\(tag(characteristic))" }
      names.insert(name)
      characteristics[characteristic] = iid
      readings.append(.init(type: characteristic, name: name, valueType: valueType, events: perms.contains("ev")))
    }
    guard !readings.isEmpty else { return nil }
    return (.other, HAPNames.services[type] ?? "service_\(tag(type))", characteristics, readings)
  }

  /// A type as a name part: `6D` → `6d`; a vendor's own UUID by its first group
  /// (`E863F10D-079E-…` → `e863f10d`).
  package static func tag(_ type: String) -> String {
    String(type.prefix { $0 != "-" }).lowercased()
  }

  /// The hub type of a HAP format (nil: tlv8 and data, which no port shows).
  package static func valueType(_ format: String) -> ValueType? {
    switch format {
    case "bool": .bool
    case "uint8", "uint16", "uint32", "uint64", "int": .integer
    case "float": .number
    case "string": .text
    default: nil
    }
  }

  /// `CurrentPosition` → `Current Position`, so the slug keeps its words apart.
  package static func words(_ text: String) -> String {
    var result = ""
    var previous: Character?
    for character in text {
      if character.isUppercase, let previous, previous.isLowercase || previous.isNumber { result.append(" ") }
      result.append(character)
      previous = character
    }
    return result
  }

  /// The Name in an accessory's Accessory Information service.
  package static func name(of accessory: JSONValue) -> String? {
    (accessory["services"]?.arrayValue ?? []).first { shortType($0["type"]) == "3E" }
      .flatMap { information in
        information["characteristics"]?.arrayValue?.first { shortType($0["type"]) == "23" }?["value"]?.stringValue
      }
  }

  /// The name of the accessory server itself (aid 1: the device, or a bridge's own entry).
  package static func serverName(in database: JSONValue) -> String? {
    (database["accessories"]?.arrayValue ?? []).first { $0["aid"]?.integerValue == 1 }.flatMap(name(of:))
  }

  /// `Desk Lamp 2` → `desk_lamp_2`; nil when nothing of it is left.
  package static func slug(_ text: String) -> String? {
    var slug = ""
    for scalar in text.lowercased().unicodeScalars {
      if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
        slug.unicodeScalars.append(scalar)
      } else if !slug.isEmpty, slug.last != "_" {
        slug.append("_")
      }
    }
    while slug.hasSuffix("_") { slug.removeLast() }
    return slug.isEmpty ? nil : slug
  }

  /// A HAP type, long (`00000025-0000-1000-8000-0026BB765291`) or short (`25`), as short
  /// upper-case hex without leading zeros.
  package static func shortType(_ value: JSONValue?) -> String? {
    guard var text = value?.stringValue?.uppercased() else { return nil }
    if text.hasSuffix("-0000-1000-8000-0026BB765291") { text = String(text.prefix(8)) }
    let trimmed = text.drop { $0 == "0" }
    return trimmed.isEmpty ? "0" : String(trimmed)
  }
}

/// The HAP characteristic types a light uses (short form).
package enum HAPType {
  package static let on = "25"
  package static let brightness = "8"
  package static let hue = "13"
  package static let saturation = "2F"
  package static let colorTemperature = "CE"
}
