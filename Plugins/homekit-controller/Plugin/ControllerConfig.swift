import PatchbayPluginKit

/// `[instances.NAME]` of a homekit-controller instance. The accessory itself is chosen by
/// `patchbay homekit-controller pair NAME ...` (kept in the state directory), not here.
///
/// ```toml
/// [instances.porch]
/// plugin = "homekit-controller"
/// request_timeout = 30      # seconds an accessory may take to answer (default 30)
/// rename = { lamp = "bedside" }   # ports bedside.light, bedside.state instead of lamp.*
/// ```
struct ControllerConfig: Decodable, Sendable {
  var requestTimeout: Int
  /// The name the accessory gave a service (the prefix of its ports) → the one to use.
  var rename: [String: String]

  enum Keys: String, CodingKey, CaseIterable {
    case requestTimeout = "request_timeout"
    case rename
  }

  init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    requestTimeout = try table.decodeIfPresent(Int.self, forKey: .requestTimeout) ?? 30
    guard (1...600).contains(requestTimeout) else {
      throw decoder.mistake("request_timeout", "\(requestTimeout) must be seconds from 1 to 600")
    }
    rename = try table.decodeIfPresent([String: String].self, forKey: .rename) ?? [:]
    for (from, to) in rename.sorted(by: { $0.key < $1.key }) where !Self.isName(to) {
      throw decoder.mistake(
        "rename.\(from)", "'\(to)' must be a port name prefix of lowercase letters, digits and '_' (like 'bedside')")
    }
    let targets = Dictionary(grouping: rename.keys.sorted(), by: { rename[$0]! })
    if let (to, from) = targets.sorted(by: { $0.key < $1.key }).first(where: { $0.value.count > 1 }) {
      throw decoder.mistake("rename", "gives '\(to)' to both \(from.joined(separator: " and ")): names must differ")
    }
  }

  static func isName(_ text: String) -> Bool {
    !text.isEmpty
      && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
  }
}
