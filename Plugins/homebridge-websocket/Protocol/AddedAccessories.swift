import PatchbayValues

/// What this client has added to Homebridge: accessory name -> service name.
///
/// The server never forgets an accessory by itself (it keeps them in its cache across
/// restarts), and an `add` for a known name is answered "already used" even when the service
/// differs. So the plugin keeps this record in its state directory, and on connect removes
/// what the config no longer has and replaces what changed service.
public struct AddedAccessories: Sendable, Hashable {
  public var services: [String: String]

  public init(_ services: [String: String] = [:]) {
    // A name the server crashes on was never added by this plugin; never send it back.
    self.services = services.filter { !PrototypePropertyNames.contains($0.key) }
  }

  /// `{"accessories":{"NAME":"SERVICE",...}}`, keys sorted.
  public var jsonText: String {
    JSONValue.sortedObject(["accessories": .sortedObject(services.mapValues { .string($0) })]).description
  }

  /// nil when the text is not such a record.
  public init?(jsonText: String) {
    guard let members = JSONValue.parse(jsonText)?["accessories"]?.objectValue else { return nil }
    var services: [String: String] = [:]
    for (name, service) in members {
      guard let service = service.stringValue else { return nil }
      services[name] = service
    }
    self.init(services)
  }
}
