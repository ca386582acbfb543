import PatchbayValues

/// What the client knows about each characteristic's value, kept in the instance's state
/// directory across restarts of the plugin and of the hub: `latest` is the newest value (the
/// hub's or HomeKit's), `server` what the server held when the client last saw it (what it
/// sent there, or read or was told back).
///
/// Why both: on connect a value the server shows that differs from `server` was written by
/// HomeKit meanwhile and must not be reverted, while a `latest` that differs from `server`
/// was changed by the hub meanwhile and must be sent. And a hub that starts afresh gives the
/// plugin no values: `latest` refills a Homebridge that restarted with blank values.
public struct KnownValues: Sendable, Hashable {
  public var latest: [ClientSession.Key: JSONValue]
  public var server: [ClientSession.Key: JSONValue]

  public init(latest: [ClientSession.Key: JSONValue] = [:], server: [ClientSession.Key: JSONValue] = [:]) {
    self.latest = latest
    self.server = server
  }

  /// `{"latest":{"ACCESSORY":{"CHARACTERISTIC":VALUE}},"server":{...}}`, keys sorted.
  public var jsonText: String {
    JSONValue.sortedObject(["latest": Self.nested(latest), "server": Self.nested(server)]).description
  }

  /// nil when the text is not such a record.
  public init?(jsonText: String) {
    guard let members = JSONValue.parse(jsonText)?.objectValue, let latest = Self.flat(members["latest"]),
      let server = Self.flat(members["server"])
    else { return nil }
    self.init(latest: latest, server: server)
  }

  private static func nested(_ values: [ClientSession.Key: JSONValue]) -> JSONValue {
    var accessories: [String: [String: JSONValue]] = [:]
    for (key, value) in values { accessories[key.accessory, default: [:]][key.characteristic] = value }
    return .sortedObject(accessories.mapValues { .sortedObject($0) })
  }

  private static func flat(_ json: JSONValue?) -> [ClientSession.Key: JSONValue]? {
    guard let accessories = json?.objectValue else { return nil }
    var values: [ClientSession.Key: JSONValue] = [:]
    for (accessory, characteristics) in accessories {
      guard let characteristics = characteristics.objectValue else { return nil }
      for (characteristic, value) in characteristics {
        values[ClientSession.Key(accessory: accessory, characteristic: characteristic)] = value
      }
    }
    return values
  }
}
