import Foundation
import PatchbayTestSupport
import PatchbayValues

/// A real hub (`patchbay run`) whose instance `homekit` is a HomeKit bridge, with an
/// `example-swift` probe (instance `probe`) that records the values routed to it: what
/// aiohomekit sees of the bridge, and what its writes become on the hub's side.
final class HomeKitBridgeUnderTest: Sendable {
  let hub: HubUnderTest
  let bridgeName: String
  /// The bridge's port, held for it on 127.0.0.1 (the sandbox grants an instance its configured
  /// port only). A bridge in a network namespace of its own needs none.
  let reservation: PortReservation?

  init(name bridgeName: String, reservingPort: Bool = true) throws {
    hub = try HubUnderTest("patchbay-homekit", plugins: ["homekit", "example-swift"])
    self.bridgeName = bridgeName
    reservation = reservingPort ? try PortReservation() : nil
  }

  var stateDirectory: String { hub.stateDirectory + "/instances/homekit" }
  var probePath: String { hub.path + "/probe.jsonl" }

  /// Writes the config: the bridge on `port` (default: the reserved one) with `accessories`
  /// (`HubTOML.accessory`), the probe with `probePorts`, and `extra` (routes).
  func writeConfig(
    accessories: HubTOML, port: Int? = nil, probePorts: [HubTOML.Port] = [], extra: HubTOML = HubTOML()
  ) throws {
    try hub.writeConfig(
      HubTOML().instance(
        "homekit", plugin: "homekit",
        ["name": .string(bridgeName), "port": .integer(port ?? reservation?.port ?? 51826)])
        + accessories + HubTOML().probe(record: probePath, ports: probePorts) + extra)
  }

  func start(
    environment: [String: String] = [:],
    launcher: (_ executable: String, _ arguments: [String]) -> (String, [String]) = { ($0, $1) }
  ) throws {
    try hub.start(environment: environment, launcher: launcher)
    try hub.waitUntilRunning("homekit", "probe")
  }

  /// The port the bridge logged it listens on (its latest start).
  func port() throws -> Int {
    var port: Int?
    try eventually("the bridge's port in the log:\n\(hub.log)") {
      port = hub.log.split(separator: "\n").last {
        $0.contains("HomeKit bridge '\(bridgeName)'") && $0.contains(" on port ")
      }
      .flatMap { line in
        line.range(of: " on port ").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) }
      }
      return port != nil
    }
    return port!
  }

  /// A field of the bridge's kept identity (`setup_code`, `device_id`).
  func identity(_ key: String) throws -> String {
    let data = try Data(contentsOf: URL(fileURLWithPath: stateDirectory + "/identity.json"))
    guard let value = JSONValue.parse(String(decoding: data, as: UTF8.self))?[key]?.stringValue else {
      throw HubUnderTestError("no \(key) in identity.json")
    }
    return value
  }

  /// The config number (`c#`) kept in accessory-ids.json.
  func configNumber() throws -> Int {
    let data = try Data(contentsOf: URL(fileURLWithPath: stateDirectory + "/accessory-ids.json"))
    guard let number = JSONValue.parse(String(decoding: data, as: UTF8.self))?["configNumber"]?.integerValue else {
      throw HubUnderTestError("no configNumber in accessory-ids.json")
    }
    return number
  }

  /// What the probe recorded, one `{"port":...,"value":...}` line each.
  func recorded() -> [String] {
    ((try? String(contentsOfFile: probePath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  /// The pid of the homekit instance's plugin process.
  func pluginPID() throws -> Int32 {
    guard let pid = try hub.pid(of: "homekit") else { throw HubUnderTestError("the homekit instance is not running") }
    return pid
  }
}

/// The accessory database as aiohomekit listed it (`list_accessories_and_characteristics`).
struct ListedAccessories {
  let json: JSONValue

  var accessories: [JSONValue] { json.arrayValue ?? [] }

  /// `[aid, iid]` of the characteristic of `type` (short form) of the accessory named `name`.
  func id(_ name: String, _ type: String) -> [Int]? {
    characteristic(name, type).map { [$0.aid, $0.json["iid"]?.integerValue ?? -1] }
  }

  /// `"aid.iid"`, the key of aiohomekit's answers and events.
  func key(_ name: String, _ type: String) -> String? {
    id(name, type).map { "\($0[0]).\($0[1])" }
  }

  /// The characteristic itself (format, perms, minValue, ...), with its accessory's aid.
  func characteristic(_ name: String, _ type: String) -> (aid: Int, json: JSONValue)? {
    for accessory in accessories {
      let characteristics = (accessory["services"]?.arrayValue ?? []).flatMap {
        $0["characteristics"]?.arrayValue ?? []
      }
      guard characteristics.contains(where: { Self.short($0["type"]) == "23" && $0["value"]?.stringValue == name })
      else { continue }
      guard let found = characteristics.first(where: { Self.short($0["type"]) == type }) else { return nil }
      return (accessory["aid"]?.integerValue ?? -1, found)
    }
    return nil
  }

  /// The service types (short form) of the accessory named `name`, in order.
  func serviceTypes(_ name: String) -> [String] {
    for accessory in accessories {
      let services = accessory["services"]?.arrayValue ?? []
      let names = services.flatMap { $0["characteristics"]?.arrayValue ?? [] }.filter { Self.short($0["type"]) == "23" }
      if names.contains(where: { $0["value"]?.stringValue == name }) { return services.map { Self.short($0["type"]) } }
    }
    return []
  }

  /// Every `aid.iid type`, sorted: what must not change across restarts and config edits.
  var ids: [String] {
    accessories.flatMap { accessory in
      (accessory["services"]?.arrayValue ?? []).flatMap { service in
        (service["characteristics"]?.arrayValue ?? []).map {
          "\(accessory["aid"]?.integerValue ?? -1).\($0["iid"]?.integerValue ?? -1) \(Self.short($0["type"]))"
        }
      }
    }.sorted()
  }

  /// "00000073-0000-1000-8000-0026BB765291" or "73" -> "73".
  static func short(_ type: JSONValue?) -> String {
    let text = (type?.stringValue ?? "").uppercased()
    guard text.hasSuffix("-0000-1000-8000-0026BB765291") else { return text }
    let head = text.prefix(8).drop { $0 == "0" }
    return head.isEmpty ? "0" : String(head)
  }
}
