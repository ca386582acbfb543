import HAP
import PatchbayPluginKit

/// The instance's config:
///
/// ```toml
/// [instances.homekit]
/// plugin = "homekit"
/// name = "patchbay"                    # optional: the bridge's name in Home (default: the instance name)
/// port = 51826                         # optional: default is a free port chosen once and kept
/// setup_code = "031-45-154"            # optional: default is generated once and kept
/// [[instances.homekit.accessories]]
/// name = "Bedside button"
/// service = "programmable_switch"
/// [[instances.homekit.accessories]]
/// name = "Lamp"
/// service = "lightbulb"
/// characteristics = ["brightness"]     # optional, lightbulb only: default all four
/// ```
struct HomeKitConfig: Decodable {
  /// HAP allows a bridge 150 accessories: itself and 149 bridged ones.
  static let maximumAccessories = 149

  struct Accessory: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
      case name, service, characteristics, manufacturer, model
    }

    var name: String
    var service: ServiceKind
    /// In iid order; for a lightbulb, the optional ones it has.
    var characteristics: [Characteristic]
    var manufacturer: String?
    var model: String?

    init(from decoder: Decoder) throws {
      try decoder.refuseUnknownKeys(CodingKeys.self)
      let table = try decoder.container(keyedBy: CodingKeys.self)
      name = try table.decode(String.self, forKey: .name)
      guard !name.isEmpty, name.count <= 64 else { throw table.mistake(.name, "must be 1 to 64 characters") }
      let serviceName = try table.decode(String.self, forKey: .service)
      guard let service = ServiceKind(configName: serviceName) else {
        throw table.mistake(
          .service,
          "unknown service '\(serviceName)' (one of "
            + ServiceKind.allCases.map(\.rawValue).joined(separator: ", ") + ")")
      }
      self.service = service
      characteristics = service.characteristics
      if let chosen = try table.decodeIfPresent([String].self, forKey: .characteristics) {
        guard service == .lightbulb else {
          throw table.mistake(.characteristics, "is only for a lightbulb (its optional characteristics)")
        }
        let options = ServiceKind.lightOptions
        for name in chosen where !options.contains(where: { $0.portName == name }) {
          throw table.mistake(
            .characteristics,
            "has '\(name)': a lightbulb's options are " + options.map(\.portName).joined(separator: ", "))
        }
        characteristics = [.on] + options.filter { chosen.contains($0.portName) }
      }
      manufacturer = try table.decodeIfPresent(String.self, forKey: .manufacturer)
      model = try table.decodeIfPresent(String.self, forKey: .model)
    }

    /// Port names start with this: the name lowercased, other characters than a-z, 0-9 and _
    /// replaced by _ (as homebridge-websocket does).
    var portPrefix: String { Self.portPrefix(for: name) }

    static func portPrefix(for name: String) -> String {
      String(
        name.lowercased().map { character -> Character in
          character.isASCII && (character.isLetter || character.isNumber || character == "_") ? character : "_"
        })
    }
  }

  enum CodingKeys: String, CodingKey, CaseIterable {
    case name, port, accessories
    case setupCode = "setup_code"
  }

  var name: String?
  var port: Int?
  var setupCode: HAPSetupCode?
  var accessories: [Accessory]

  init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(CodingKeys.self)
    let table = try decoder.container(keyedBy: CodingKeys.self)
    name = try table.decodeIfPresent(String.self, forKey: .name)
    if let name, name.isEmpty || name.count > 64 { throw table.mistake(.name, "must be 1 to 64 characters") }
    port = try table.decodeIfPresent(Int.self, forKey: .port, in: 1...65535)
    if let text = try table.decodeIfPresent(String.self, forKey: .setupCode) {
      if let problem = HAPSetupCode.validationProblem(text) { throw table.mistake(.setupCode, problem) }
      setupCode = HAPSetupCode(text)
    }
    accessories = try table.decode([Accessory].self, forKey: .accessories)
    guard !accessories.isEmpty else {
      throw table.mistake(.accessories, "must list at least one accessory ({ name = \"...\", service = \"switch\" })")
    }
    guard accessories.count <= Self.maximumAccessories else {
      throw table.mistake(
        .accessories,
        "lists \(accessories.count) accessories; a HomeKit bridge serves at most \(Self.maximumAccessories): "
          + "split them over two homekit instances")
    }
    var names: [String: Int] = [:]
    var prefixes: [String: String] = [:]
    for (index, accessory) in accessories.enumerated() {
      if let first = names[accessory.name] {
        throw PluginError.config(
          "accessories.\(index).name: '\(accessory.name)' is listed twice (also accessories.\(first).name)")
      }
      names[accessory.name] = index
      if let other = prefixes[accessory.portPrefix] {
        throw PluginError.config(
          "accessories.\(index).name: '\(accessory.name)' and '\(other)' both give port names '\(accessory.portPrefix).*'"
        )
      }
      prefixes[accessory.portPrefix] = accessory.name
    }
  }
}
