/// Every aid and iid this bridge ever gave out, and the config number: Apple Home keys rooms,
/// scenes and automations on aid/iid, so they never change for the same accessory name and
/// service/characteristic type, whatever the order of the config, and are never reused.
/// Kept in the state directory (`accessory-ids.json`).
package struct AccessoryIdentifiers: Codable, Equatable, Sendable {
  package struct Accessory: Codable, Equatable, Sendable {
    package var aid: Int
    /// "SERVICE" or "SERVICE/CHARACTERISTIC" (Apple types) -> iid.
    package var iids: [String: Int]

    package init(aid: Int, iids: [String: Int]) {
      self.aid = aid
      self.iids = iids
    }
  }

  /// aid 1 is the bridge itself; bridged accessories from 2.
  package static let bridgeAID = 1

  /// Accessory name -> its ids (also of accessories no longer configured: their aid stays theirs).
  package var accessories: [String: Accessory] = [:]
  /// The bridge's own ids (Accessory and Protocol Information).
  package var bridge = Accessory(aid: bridgeAID, iids: [:])
  /// `c#`: 1...65535, bumped whenever the database changes.
  package var configNumber = 1
  /// SHA-256 (hex) of the last database served, values left out.
  package var databaseDigest: String?

  package init() {}

  /// The aid of the accessory called `name`, given out now if it has none.
  package mutating func aid(for name: String) -> Int {
    if let known = accessories[name] { return known.aid }
    let next = max(Self.bridgeAID, accessories.values.map(\.aid).max() ?? Self.bridgeAID) + 1
    accessories[name] = Accessory(aid: next, iids: [:])
    return next
  }

  /// The iid of `key` in the accessory called `name` (nil: the bridge), given out now if new.
  package mutating func iid(_ key: String, in name: String?) -> Int {
    guard let name else { return Self.iid(key, in: &bridge) }
    _ = aid(for: name)
    return Self.iid(key, in: &accessories[name]!)
  }

  private static func iid(_ key: String, in accessory: inout Accessory) -> Int {
    if let known = accessory.iids[key] { return known }
    let next = (accessory.iids.values.max() ?? 0) + 1
    accessory.iids[key] = next
    return next
  }

  /// Records the digest of the database now served; a different one bumps `c#` (1...65535,
  /// wrapping to 1). True when it changed.
  package mutating func record(databaseDigest digest: String) -> Bool {
    guard digest != databaseDigest else { return false }
    if databaseDigest != nil { configNumber = configNumber >= 65535 ? 1 : configNumber + 1 }
    databaseDigest = digest
    return true
  }

  package static func serviceKey(_ service: String) -> String { service }
  package static func characteristicKey(_ characteristic: String, of service: String) -> String {
    "\(service)/\(characteristic)"
  }
}
