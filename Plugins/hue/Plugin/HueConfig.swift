import Foundation
import HueProtocol
import PatchbayValues

/// The hue instance's config, checked at load; every mistake names its key and what is right.
///
/// ```toml
/// [instances.lights]
/// plugin = "hue"
/// bridge = "192.168.1.20"        # host, host:port or http://host:port
/// username = "..."               # from `patchbay hue pair BRIDGE`; a secret, never logged
/// poll_interval_s = 2
/// [[instances.lights.groups]]
/// name = "living"
/// id = "1"                       # a bridge group; or bridge_group = "Living room"; or lights = ["1", "2"]
/// expose_lights = true           # member ports too (needs `lights`)
/// ```
struct HueConfig: Sendable, Equatable {
  /// What an exposed group is on the bridge side.
  enum Source: Sendable, Equatable {
    /// A bridge group by id ("0" is every light).
    case bridgeGroup(id: String)
    /// A bridge group by name, found when the bridge is first read.
    case bridgeGroupNamed(String)
    /// Lights grouped on the patchbay side only.
    case lights
  }

  struct Member: Sendable, Equatable {
    var lightID: String
    /// Names the member's ports: GROUP.NAME.light.
    var name: String
  }

  struct Group: Sendable, Equatable {
    var name: String
    var source: Source
    /// The configured members; empty means "the bridge group's members".
    var members: [Member]
    var exposeLights: Bool
  }

  var host = ""
  var port = 80
  var username = ""
  var pollIntervalSeconds = 2.0
  var groupRate = 1.0
  var lightRate = 10.0
  var maxInFlight = 3
  var requestTimeoutSeconds = 5.0
  var retryMaxSeconds = 10.0
  var groups: [Group] = []

  static let topKeys = [
    "bridge", "username", "poll_interval_s", "group_rate", "light_rate", "max_in_flight", "request_timeout_s",
    "retry_max_s", "groups",
  ]
  static let groupKeys = ["name", "id", "bridge_group", "lights", "expose_lights", "light_names"]

  init(json: String) throws {
    guard let root = JSONValue(data: Data(json.utf8))?.objectValue else {
      throw ConfigError("the config is not a table")
    }
    let reader = ConfigReader(table: root, path: "", known: Self.topKeys)
    try reader.refuseUnknownKeys()
    let bridge = try reader.string("bridge", required: true) ?? ""
    (host, port) = try Self.endpoint(bridge)
    username = try reader.string("username", required: true) ?? ""
    guard (1...80).contains(username.count),
      username.unicodeScalars.allSatisfy({
        $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "-")
      })
    else {
      // Never echo the value: it is a secret.
      throw ConfigError("username must be the 1 to 80 letters, digits or '-' that `patchbay hue pair` printed")
    }
    pollIntervalSeconds = try reader.number("poll_interval_s", in: 0.2...3600) ?? pollIntervalSeconds
    groupRate = try reader.number("group_rate", in: 0.05...50) ?? groupRate
    lightRate = try reader.number("light_rate", in: 0.1...100) ?? lightRate
    maxInFlight = try reader.integer("max_in_flight", in: 1...16) ?? maxInFlight
    requestTimeoutSeconds = try reader.number("request_timeout_s", in: 0.5...120) ?? requestTimeoutSeconds
    retryMaxSeconds = try reader.number("retry_max_s", in: 0.5...600) ?? retryMaxSeconds

    guard let list = root["groups"] else {
      throw ConfigError("missing required key 'groups' (an array of { name, id | bridge_group | lights })")
    }
    guard let entries = list.arrayValue, !entries.isEmpty else {
      throw ConfigError("groups must be a non-empty array of tables like { name = \"living\", id = \"1\" }")
    }
    var names: Set<String> = []
    for (index, entry) in entries.enumerated() {
      let group = try Self.group(entry, path: "groups.\(index)")
      guard names.insert(group.name).inserted else {
        throw ConfigError("groups.\(index).name '\(group.name)' is used twice")
      }
      groups.append(group)
    }
  }

  static func group(_ entry: JSONValue, path: String) throws -> Group {
    guard let table = entry.objectValue else { throw ConfigError("\(path) must be a table with a name") }
    let reader = ConfigReader(table: table, path: path + ".", known: groupKeys)
    try reader.refuseUnknownKeys()
    let name = try portName(reader.string("name", required: true) ?? "", key: "\(path).name")
    let id = try reader.identifier("id")
    let bridgeName = try reader.string("bridge_group")
    let lightIDs = try reader.identifiers("lights")
    let exposeLights = try reader.bool("expose_lights") ?? false
    let names = try reader.table("light_names") ?? [:]

    let source: Source
    switch (id, bridgeName) {
    case (let id?, nil): source = .bridgeGroup(id: id)
    case (nil, let bridgeName?): source = .bridgeGroupNamed(bridgeName)
    case (nil, nil):
      guard let lightIDs, !lightIDs.isEmpty else {
        throw ConfigError("\(path) needs one of id (a bridge group id), bridge_group (its name) or lights (light ids)")
      }
      source = .lights
    case (.some, .some):
      throw ConfigError("\(path) has both id and bridge_group; keep one")
    }
    if exposeLights && (lightIDs ?? []).isEmpty {
      throw ConfigError(
        "\(path).expose_lights needs \(path).lights = [\"1\", \"2\", ...]: member ports are declared at start, before the bridge is read"
      )
    }
    for key in names.keys.sorted() where !(lightIDs ?? []).contains(key) {
      throw ConfigError("\(path).light_names.\(key): light \(key) is not in \(path).lights")
    }
    var members: [Member] = []
    var memberNames: Set<String> = []
    for lightID in lightIDs ?? [] {
      let memberName: String
      if let given = names[lightID] {
        guard let text = given.stringValue else { throw ConfigError("\(path).light_names.\(lightID) must be a string") }
        memberName = try portName(text, key: "\(path).light_names.\(lightID)")
      } else {
        memberName = "light\(lightID)"
      }
      guard memberNames.insert(memberName).inserted else {
        throw ConfigError("\(path).lights: '\(memberName)' names two members (list each light once)")
      }
      members.append(Member(lightID: lightID, name: memberName))
    }
    return Group(name: name, source: source, members: members, exposeLights: exposeLights)
  }

  static func portName(_ name: String, key: String) throws -> String {
    guard !name.isEmpty, name.utf8.count <= 48,
      name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
    else {
      throw ConfigError("\(key) '\(name)' must be 1 to 48 lowercase letters, digits or _ (it names ports)")
    }
    return name
  }

  static func endpoint(_ text: String) throws -> (String, Int) {
    do throws(BridgeAddressError) {
      let address = try BridgeAddress(parsing: text)
      return (address.host, address.port)
    } catch {
      throw ConfigError("bridge '\(text)': \(error.description)")
    }
  }
}

/// A config mistake; the hub shows it with the file and instance.
struct ConfigError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
