import Foundation
import HomebridgeProtocol
import PatchbayValues

/// The accessory list kept across restarts in a file, like Homebridge's cachedAccessories:
/// names, services and settings, never values.
struct AccessoryCache {
  let path: String

  func load() throws -> [SimulatedAccessory] {
    guard FileManager.default.fileExists(atPath: path) else { return [] }
    let text = try String(contentsOfFile: path, encoding: .utf8)
    guard case .array(let entries) = JSONValue.parse(text) ?? .null else {
      throw CacheError(description: "\(path) is not a JSON array of accessories")
    }
    return entries.compactMap { entry in
      guard let payload = entry.objectValue, let name = payload["name"]?.stringValue,
        let service = payload["service"]?.stringValue.flatMap(ServiceCatalog.service(named:))
      else { return nil }
      return SimulatedAccessory(name: name, service: service, payload: payload)
    }
  }

  /// Written to a temporary file and renamed, so a crash never leaves half a file.
  func save(_ accessories: [SimulatedAccessory]) throws {
    let text = JSONValue.array(accessories.map { .sortedObject($0.addPayload) }).description
    let temporary = path + ".tmp"
    try text.write(toFile: temporary, atomically: false, encoding: .utf8)
    if rename(temporary, path) != 0 {
      throw CacheError(description: "cannot replace \(path): \(String(cString: strerror(errno)))")
    }
  }

  struct CacheError: Error, CustomStringConvertible {
    var description: String
  }
}
