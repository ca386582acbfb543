import HueProtocol
import PatchbayPluginKit

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

  /// Reads and checks the config JSON the hub hands the plugin.
  init(json: String) throws {
    self = try PluginContext.decodeConfig(Self.self, json: json)
  }

  static func portName(_ name: String, key: String) throws -> String {
    guard !name.isEmpty, name.utf8.count <= 48,
      name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
    else {
      throw PluginError.config("\(key) '\(name)' must be 1 to 48 lowercase letters, digits or _ (it names ports)")
    }
    return name
  }
}
