import Foundation
import HAP
import HomeKitProtocol
import PatchbayPluginKit
import PatchbayValues
import Testing

@testable import HomeKitPlugin

/// The database as GET /accessories serves it, against the reference table, and the ids'
/// stability across config edits.
struct AccessoryDatabaseTests {
  static func config(_ accessories: [(String, String)]) throws -> HomeKitConfig {
    let list = accessories.map { #"{"name": "\#($0.0)", "service": "\#($0.1)"}"# }.joined(separator: ",")
    return try PluginContext.decodeConfig(HomeKitConfig.self, json: #"{"accessories": [\#(list)]}"#)
  }

  static func database(_ accessories: [(String, String)], identifiers: inout AccessoryIdentifiers) throws
    -> AccessoryDatabase
  {
    AccessoryDatabase(
      bridgeName: "Bridge", accessories: try config(accessories).accessories, serialNumber: "AABBCCDDEEFF",
      identifiers: &identifiers)
  }

  /// (type, format, perms) of every characteristic of the service of aid `aid` with type `service`.
  static func characteristics(_ json: JSONValue, aid: Int, service: String) -> [(String, String, [String], Int)] {
    let accessory = json["accessories"]?.arrayValue?.first { $0["aid"]?.integerValue == aid }
    let found = accessory?["services"]?.arrayValue?.first { $0["type"]?.stringValue == service }
    return (found?["characteristics"]?.arrayValue ?? []).map {
      (
        $0["type"]?.stringValue ?? "", $0["format"]?.stringValue ?? "",
        ($0["perms"]?.arrayValue ?? []).compactMap(\.stringValue), $0["iid"]?.integerValue ?? 0
      )
    }
  }

  /// The reference's table: service type and its characteristics (type, format, perms).
  static let table: [(String, String, [(String, String, [String])])] = [
    ("switch", "49", [("25", "bool", ["pr", "pw", "ev"])]),
    ("outlet", "47", [("25", "bool", ["pr", "pw", "ev"]), ("26", "bool", ["pr", "ev"])]),
    (
      "lightbulb", "43",
      [
        ("25", "bool", ["pr", "pw", "ev"]), ("8", "int", ["pr", "pw", "ev"]), ("13", "float", ["pr", "pw", "ev"]),
        ("2F", "float", ["pr", "pw", "ev"]), ("CE", "uint32", ["pr", "pw", "ev"]),
      ]
    ),
    ("programmable_switch", "89", [("73", "uint8", ["pr", "ev"])]),
    ("contact_sensor", "80", [("6A", "uint8", ["pr", "ev"])]),
    ("motion_sensor", "85", [("22", "bool", ["pr", "ev"])]),
    ("occupancy_sensor", "86", [("71", "uint8", ["pr", "ev"])]),
    ("temperature_sensor", "8A", [("11", "float", ["pr", "ev"])]),
    ("humidity_sensor", "82", [("10", "float", ["pr", "ev"])]),
    ("light_sensor", "84", [("6B", "float", ["pr", "ev"])]),
    (
      "battery", "96", [("68", "uint8", ["pr", "ev"]), ("8F", "uint8", ["pr", "ev"]), ("79", "uint8", ["pr", "ev"])]
    ),
    (
      "garage_door", "41",
      [("E", "uint8", ["pr", "ev"]), ("32", "uint8", ["pr", "pw", "ev", "tw"]), ("24", "bool", ["pr", "ev"])]
    ),
    ("lock", "45", [("1D", "uint8", ["pr", "ev"]), ("1E", "uint8", ["pr", "pw", "ev", "tw"])]),
  ]

  @Test(arguments: table.map(\.0))
  func serviceFollowsTheReferenceTable(service: String) throws {
    let (_, type, expected) = Self.table.first { $0.0 == service }!
    var identifiers = AccessoryIdentifiers()
    let json = try Self.database([("Thing", service)], identifiers: &identifiers).json { _ in nil }
    let found = Self.characteristics(json, aid: 2, service: type)
    // The service's characteristics in the table's order, then Name (23).
    #expect(found.map(\.0) == expected.map(\.0) + ["23"])
    #expect(found.map(\.1) == expected.map(\.1) + ["string"])
    #expect(found.map(\.2) == expected.map(\.2) + [["pr"]])
    // iids: Accessory Information 1 (characteristics 2...7), the service 8, its characteristics from 9.
    #expect(found.map(\.3) == Array(9..<(9 + expected.count + 1)))
    let information = Self.characteristics(json, aid: 2, service: "3E")
    #expect(information.map(\.0) == ["14", "20", "21", "23", "30", "52"])
    #expect(information.map(\.3) == [2, 3, 4, 5, 6, 7])
    #expect(information[0].2 == ["pw"])
  }

  @Test func bridgeIsAid1WithProtocolInformation() throws {
    var identifiers = AccessoryIdentifiers()
    let database = try Self.database([("Lamp", "lightbulb")], identifiers: &identifiers)
    let json = database.json { _ in nil }
    let bridge = json["accessories"]?.arrayValue?.first
    #expect(bridge?["aid"]?.integerValue == 1)
    #expect(bridge?["services"]?.arrayValue?.map { $0["type"]?.stringValue } == ["3E", "A2"])
    let version = bridge?["services"]?.arrayValue?[1]["characteristics"]?.arrayValue?.first
    #expect(version?["type"]?.stringValue == "37")
    #expect(version?["value"]?.stringValue == "1.1.0")
    #expect(version?["iid"]?.integerValue == 9)
    let name = bridge?["services"]?.arrayValue?[0]["characteristics"]?.arrayValue?[3]
    #expect(name?["value"]?.stringValue == "Bridge")
    // Lightbulb brightness: metadata as HAP lists it.
    let bulb = json["accessories"]?.arrayValue?[1]["services"]?.arrayValue?[1]
    #expect(bulb?["primary"]?.boolValue == true)
    let brightness = bulb?["characteristics"]?.arrayValue?[1]
    #expect(brightness?["minValue"]?.integerValue == 0)
    #expect(brightness?["maxValue"]?.integerValue == 100)
    #expect(brightness?["unit"]?.stringValue == "percentage")
  }

  /// aid of each accessory name, and the iid of every characteristic type of its service.
  static func ids(_ database: AccessoryDatabase, _ names: [String]) -> [String: [String: Int]] {
    var result: [String: [String: Int]] = [:]
    for (index, name) in names.enumerated() {
      var ids = ["aid": database.ids[index].values.first?.aid ?? 0]
      for (type, id) in database.ids[index] { ids[type] = id.iid }
      result[name] = ids
    }
    return result
  }

  @Test func idsSurviveReorderAddAndRename() throws {
    var identifiers = AccessoryIdentifiers()
    let first = [("Lamp", "lightbulb"), ("Button", "programmable_switch"), ("Door", "contact_sensor")]
    let database = try Self.database(first, identifiers: &identifiers)
    let changed1 = identifiers.record(databaseDigest: database.digest)
    #expect(changed1)
    #expect(identifiers.configNumber == 1)
    let before = Self.ids(database, first.map(\.0))
    #expect(before["Lamp"]?["aid"] == 2 && before["Button"]?["aid"] == 3 && before["Door"]?["aid"] == 4)

    // The same config again: same ids, same c#.
    let again = try Self.database(first, identifiers: &identifiers)
    let changed2 = identifiers.record(databaseDigest: again.digest)
    #expect(!changed2)
    #expect(identifiers.configNumber == 1)

    // Reordered, one added in the middle, one renamed: the others keep every id; c# goes up.
    let edited = [
      ("Fan", "switch"), ("Door", "contact_sensor"), ("Bedside", "programmable_switch"), ("Lamp", "lightbulb"),
    ]
    let after = try Self.database(edited, identifiers: &identifiers)
    let changed3 = identifiers.record(databaseDigest: after.digest)
    #expect(changed3)
    #expect(identifiers.configNumber == 2)
    let ids = Self.ids(after, edited.map(\.0))
    #expect(ids["Lamp"] == before["Lamp"])
    #expect(ids["Door"] == before["Door"])
    // New names get aids never given before (Button's 3 stays Button's).
    #expect(ids["Fan"]?["aid"] == 5)
    #expect(ids["Bedside"]?["aid"] == 6)

    // Survives the round trip through the state file's JSON.
    let data = try JSONEncoder().encode(identifiers)
    var decoded = try JSONDecoder().decode(AccessoryIdentifiers.self, from: data)
    #expect(decoded == identifiers)
    let back = try Self.database(first, identifiers: &decoded)
    #expect(Self.ids(back, first.map(\.0)) == before)
  }

  @Test func configNumberWrapsTo1() {
    var identifiers = AccessoryIdentifiers()
    identifiers.configNumber = 65535
    identifiers.databaseDigest = "old"
    let changed4 = identifiers.record(databaseDigest: "new")
    #expect(changed4)
    #expect(identifiers.configNumber == 1)
  }
}
