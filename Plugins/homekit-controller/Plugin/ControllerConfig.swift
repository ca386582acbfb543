import PatchbayPluginKit

/// `[instances.NAME]` of a homekit-controller instance. The accessory itself is chosen by
/// `patchbay homekit-controller pair NAME ...` (kept in the state directory), not here.
///
/// ```toml
/// [instances.porch]
/// plugin = "homekit-controller"
/// request_timeout = 30      # seconds an accessory may take to answer (default 30)
/// ```
struct ControllerConfig: Decodable, Sendable {
  var requestTimeout: Int

  enum Keys: String, CodingKey, CaseIterable {
    case requestTimeout = "request_timeout"
  }

  init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    requestTimeout = try table.decodeIfPresent(Int.self, forKey: .requestTimeout) ?? 30
    guard (1...600).contains(requestTimeout) else {
      throw decoder.mistake("request_timeout", "\(requestTimeout) must be seconds from 1 to 600")
    }
  }
}
