import MQTTProtocol
import PatchbayPluginKit

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The hub's identity on a broker: a random id made once and kept in the instance's state
/// directory (`hub-id`), so two hubs whose instances share a name never share a node id,
/// unique_id, device, client id or status topic (and one's last will never marks the other's
/// entities offline). The state directory is the hub's own (one hub per state directory).
enum HubIdentity {
  static let fileName = "hub-id"

  /// The kept id, or a new one written atomically when there is none (or it is not an id).
  static func loadOrCreate(in stateDirectory: String) throws -> String {
    let path = stateDirectory + "/" + fileName
    _ = AtomicFile.removeLeftovers(of: path)
    if let data = FileManager.default.contents(atPath: path) {
      let text = String(decoding: data, as: UTF8.self).trimmingWhitespace
      if isValid(text) { return text }
    }
    var generator = SystemRandomNumberGenerator()
    let id = (0..<8).map { _ in String(Int.random(in: 0..<16, using: &generator), radix: 16) }.joined()
    do {
      try AtomicFile.write(id + "\n", to: path)
    } catch {
      throw PluginError(.unavailable, "cannot keep the hub id in \(path): \(error)")
    }
    return id
  }

  /// 1 to 32 of a-z and 0-9: it is a topic level and part of HA ids.
  static func isValid(_ id: String) -> Bool {
    !id.isEmpty && id.utf8.count <= 32
      && id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
  }
}
