/// Every aid and iid this bridge ever gave out, and the config number: Apple Home keys rooms,
/// scenes and automations on aid/iid, so they never change for the same accessory name and
/// service/characteristic type, whatever the order of the config, and are never reused.
/// Kept in the state directory (`accessory-ids.json`).
struct AccessoryIdentifiers: Codable, Equatable, Sendable {
  struct Accessory: Codable, Equatable, Sendable {
    var aid: Int
    /// "SERVICE" or "SERVICE/CHARACTERISTIC" (Apple types) -> iid.
    var iids: [String: Int]
  }

  /// aid 1 is the bridge itself; bridged accessories from 2.
  static let bridgeAID = 1

  /// Accessory name -> its ids (also of accessories no longer configured: their aid stays theirs).
  var accessories: [String: Accessory] = [:]
  /// The bridge's own ids (Accessory and Protocol Information).
  var bridge = Accessory(aid: bridgeAID, iids: [:])
  /// `c#`: 1...65535, bumped whenever the database changes.
  var configNumber = 1
  /// SHA-256 (hex) of the last database served, values left out.
  var databaseDigest: String?

  /// The aid of the accessory called `name`, given out now if it has none.
  mutating func aid(for name: String) -> Int {
    if let known = accessories[name] { return known.aid }
    let next = max(Self.bridgeAID, accessories.values.map(\.aid).max() ?? Self.bridgeAID) + 1
    accessories[name] = Accessory(aid: next, iids: [:])
    return next
  }

  /// The iid of `key` in the accessory called `name` (nil: the bridge), given out now if new.
  mutating func iid(_ key: String, in name: String?) -> Int {
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
  mutating func record(databaseDigest digest: String) -> Bool {
    guard digest != databaseDigest else { return false }
    if databaseDigest != nil { configNumber = configNumber >= 65535 ? 1 : configNumber + 1 }
    databaseDigest = digest
    return true
  }

  static func serviceKey(_ service: String) -> String { service }
  static func characteristicKey(_ characteristic: String, of service: String) -> String {
    "\(service)/\(characteristic)"
  }
}
