import CAvahi

/// The TXT record a HAP accessory advertises with `_hap._tcp` (reference: homekit.md,
/// Discovery). A value type: the advertiser takes a new one through `update(txt:)` when the
/// configuration number goes up or the pairing state flips.
public struct HAPTXTRecord: Sendable, Equatable {
  /// `c#`, the configuration number: bumped whenever the accessory database changes (1–65535).
  public var configurationNumber: Int
  /// `ff`, feature flags (0: no MFi authentication).
  public var featureFlags: Int
  /// `id`, the device id (`XX:XX:XX:XX:XX:XX`), random once per accessory and kept.
  public var deviceID: String
  /// `md`, the model name.
  public var model: String
  /// `pv`, the protocol version.
  public var protocolVersion: String
  /// `s#`, the state number (always 1 for HAP over IP).
  public var stateNumber: Int
  /// `sf`, status flags: true while no controller is paired (sf=1), false once paired (sf=0).
  public var discoverable: Bool
  /// `ci`, the category number (2 bridge, 5 lightbulb, 8 switch, ...).
  public var category: Int
  /// `sh`, the setup hash (the hap module computes it; base64 of 4 bytes of SHA-512).
  public var setupHash: String

  public init(
    configurationNumber: Int = 1, featureFlags: Int = 0, deviceID: String, model: String,
    protocolVersion: String = "1.1", stateNumber: Int = 1, discoverable: Bool = true, category: Int = 2,
    setupHash: String
  ) {
    self.configurationNumber = configurationNumber
    self.featureFlags = featureFlags
    self.deviceID = deviceID
    self.model = model
    self.protocolVersion = protocolVersion
    self.stateNumber = stateNumber
    self.discoverable = discoverable
    self.category = category
    self.setupHash = setupHash
  }

  /// The key/value pairs in the order they are advertised. `c#` is kept in 1–65535: a number
  /// that ran past 65535 wraps to 1, as the specification asks.
  public var pairs: [(key: String, value: String)] {
    let config = configurationNumber < 1 ? 1 : (configurationNumber - 1) % 65535 + 1
    return [
      ("c#", String(config)), ("ff", String(featureFlags)), ("id", deviceID), ("md", model),
      ("pv", protocolVersion), ("s#", String(stateNumber)), ("sf", discoverable ? "1" : "0"),
      ("ci", String(category)), ("sh", setupHash),
    ]
  }

  /// The record as `key=value` strings, in order.
  public var strings: [String] { pairs.map { "\($0.key)=\($0.value)" } }

  /// A new Avahi string list holding the record (in order); the caller frees it with
  /// `avahi_string_list_free`.
  func avahiStringList() -> UnsafeMutablePointer<AvahiStringList>? {
    var list: UnsafeMutablePointer<AvahiStringList>? = nil
    // avahi_string_list_add prepends: add from the last to the first.
    for pair in pairs.reversed() {
      list = avahi_string_list_add_pair(list, pair.key, pair.value)
    }
    return list
  }
}
