/// BlueZ's object tree as this client knows it: from GetManagedObjects, kept current by
/// InterfacesAdded/InterfacesRemoved and PropertiesChanged. A pure value (no I/O).
public struct BlueZObjects: Sendable {
  /// path → interface → property → value
  public private(set) var objects: [String: [String: [String: DBusValue]]] = [:]

  public init() {}

  /// The answer of GetManagedObjects (`a{oa{sa{sv}}}`).
  public init(managed: DBusValue?) {
    for (path, interfaces) in managed?.dictionary ?? [:] { add(path: path, interfaces: interfaces) }
  }

  public mutating func add(path: String, interfaces: DBusValue) {
    for (name, properties) in interfaces.dictionary ?? [:] {
      objects[path, default: [:]][name, default: [:]].merge(properties.dictionary ?? [:]) { $1 }
    }
  }

  public mutating func remove(path: String, interfaces: [String]) {
    for name in interfaces { objects[path]?[name] = nil }
    if objects[path]?.isEmpty == true { objects[path] = nil }
  }

  /// Merges changed properties; returns false when the object or interface is unknown.
  @discardableResult
  public mutating func change(path: String, interface: String, changed: [String: DBusValue], invalidated: [String])
    -> Bool
  {
    guard objects[path]?[interface] != nil else { return false }
    objects[path]![interface]!.merge(changed) { $1 }
    for name in invalidated { objects[path]![interface]![name] = nil }
    return true
  }

  public func property(_ path: String, _ interface: String, _ name: String) -> DBusValue? {
    objects[path]?[interface]?[name]
  }

  public var adapters: [String] { objects.keys.filter { objects[$0]?[BlueZNames.adapter] != nil }.sorted() }

  public func isPowered(_ adapter: String) -> Bool {
    property(adapter, BlueZNames.adapter, "Powered")?.bool ?? false
  }

  /// The device object with this address on any adapter (a powered adapter first).
  public func device(address: String) -> String? {
    let wanted = address.uppercased()
    let paths = objects.keys.filter {
      property($0, BlueZNames.device, "Address")?.string?.uppercased() == wanted
    }
    return paths.sorted().first { path in adapters.contains { path.hasPrefix($0 + "/") && isPowered($0) } }
      ?? paths.sorted().first
  }

  /// The GATT characteristic with this UUID below a device.
  public func characteristic(below device: String, uuid: String) -> String? {
    objects.keys.sorted().first {
      $0.hasPrefix(device + "/")
        && property($0, BlueZNames.characteristic, "UUID")?.string?.lowercased() == uuid.lowercased()
    }
  }

  /// Devices that advertise a service UUID (BlueZ lists advertised UUIDs in Device1.UUIDs).
  public func devices(advertising uuid: String) -> [String] {
    objects.keys.filter {
      property($0, BlueZNames.device, "UUIDs")?.strings?.contains { $0.lowercased() == uuid } ?? false
    }.sorted()
  }
}
