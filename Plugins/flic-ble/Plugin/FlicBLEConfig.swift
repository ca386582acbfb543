import FlicBLEBlueZ
import PatchbayPluginKit

/// The flic-ble instance's config: the same button table as the flic plugin's, so moving from
/// flicd is `plugin = "flic-ble"` and nothing else.
///
/// ```toml
/// max_queued_age_s = 3       # queued presses older than this are dropped
/// expose_up_down = false     # also publish down and up
/// [[instances.buttons.buttons]]
/// name = "bedside"
/// address = "80:e4:da:71:b6:8e"
/// model = "duo"              # optional: "flic2" (the default), "duo" or "twist"
/// twist_mode = "dimmer"      # a Twist only: "dimmer" (the default) or "selector"
/// ```
struct FlicBLEConfig: Sendable {
  /// Which Flic a button is: its ports follow.
  enum Model: String, Sendable, Equatable, CaseIterable {
    /// `NAME.button`, `NAME.connected`, `NAME.battery`, `NAME.battery_mv`.
    case flic2
    /// A Flic 2's ports plus `NAME.small_button`, `NAME.swipe` and `NAME.small_swipe`.
    case duo
    /// A Flic 2's ports plus `NAME.twist` and `NAME.dimmer`, and by its mode `NAME.push_twist`
    /// or `NAME.slot`.
    case twist
  }

  /// What pushing and turning a Twist does.
  enum TwistMode: String, Sendable, Equatable, CaseIterable {
    /// One dimmer (`NAME.twist`); pushed and turned, a second one (`NAME.push_twist`).
    case dimmer
    /// Pushed and turned, the dial picks one of 12 slots (`NAME.slot`), each with its own level.
    case selector
  }

  struct Button: Sendable, Equatable {
    var name: String
    var address: BluetoothAddressText
    var model: Model = .flic2
    var twistMode: TwistMode = .dimmer
  }

  var buttons: [Button] = []
  /// Queued presses older than this (seconds) are dropped: a light toggling minutes after the
  /// press surprises people (the flic plugin's rule).
  var maxQueuedAgeSeconds = 3.0
  var exposeUpDown = false
  /// Seconds without a press before the button drops the link to save battery (511: never).
  var autoDisconnectSeconds = 511
  /// Only in debug builds (the tests' simulated buttons): extra trusted factory keys (one, or a
  /// list: a simulated Twist has a key of its own). A release build refuses the key, so only
  /// Shortcut Labs' keys make a button genuine there.
  var testFactoryKeys: [[UInt8]] = []

  init(json: String) throws {
    self = try PluginContext.decodeConfig(Self.self, json: json)
  }
}

extension FlicBLEConfig: Decodable {
  enum Keys: String, CodingKey, CaseIterable {
    case buttons
    case maxQueuedAge = "max_queued_age_s"
    case exposeUpDown = "expose_up_down"
    case autoDisconnect = "auto_disconnect_s"
    #if DEBUG
      case testFactoryKey = "test_factory_key"
    #endif
  }

  /// The flic plugin's keys that have no meaning over BlueZ: named as such, so that a config moved
  /// from flicd says what to remove.
  enum FlicdKeys: String, CodingKey, CaseIterable {
    case host, port
    case clickEvents = "click_events"
    case latencyMode = "latency_mode"
    case pingInterval = "ping_interval_s"
    case pingTimeout = "ping_timeout_s"
  }

  init(from decoder: Decoder) throws {
    if let flicd = try? decoder.container(keyedBy: FlicdKeys.self),
      let key = FlicdKeys.allCases.first(where: { flicd.contains($0) })
    {
      throw decoder.mistake(key.rawValue, "is the flic plugin's (flicd); flic-ble talks to BlueZ: remove it")
    }
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    maxQueuedAgeSeconds =
      try table.decodeIfPresent(Double.self, forKey: .maxQueuedAge, in: 0...86400, unit: " s") ?? maxQueuedAgeSeconds
    exposeUpDown = try table.decodeIfPresent(Bool.self, forKey: .exposeUpDown) ?? exposeUpDown
    autoDisconnectSeconds =
      try table.decodeIfPresent(Int.self, forKey: .autoDisconnect, in: 0...511, unit: " seconds (511 means never)")
      ?? autoDisconnectSeconds
    #if DEBUG
      if table.contains(.testFactoryKey) {
        let texts: [String]
        if let list = try? table.decode([String].self, forKey: .testFactoryKey) {
          texts = list
        } else {
          texts = [try table.decode(String.self, forKey: .testFactoryKey)]
        }
        for text in texts {
          guard let key = Self.hexBytes(text), key.count == 32 else {
            throw table.mistake(.testFactoryKey, "must be 64 hex digits (an Ed25519 public key), or a list of them")
          }
          testFactoryKeys.append(key)
        }
      }
    #endif
    guard table.contains(.buttons) else {
      throw PluginError.config("missing required key 'buttons' (an array of {name, address})")
    }
    guard (try? table.nestedUnkeyedContainer(forKey: .buttons)) != nil else {
      throw decoder.mistake(
        "buttons", "must be an array of tables like { name = \"bedside\", address = \"80:e4:da:71:b6:8e\" }")
    }
    var seenNames: Set<String> = []
    var seenAddresses: Set<BluetoothAddressText> = []
    for (index, entry) in try table.decode([ButtonEntry].self, forKey: .buttons).enumerated() {
      let path = "buttons.\(index)"
      guard seenNames.insert(entry.name).inserted else {
        throw PluginError.config("\(path).name '\(entry.name)' is used twice")
      }
      guard seenAddresses.insert(entry.address).inserted else {
        throw PluginError.config("\(path).address \(entry.address) is used twice")
      }
      buttons.append(Button(name: entry.name, address: entry.address, model: entry.model, twistMode: entry.twistMode))
    }
  }

  /// One `[[buttons]]` table. flicd's `latency_mode` has no meaning over BlueZ and is refused
  /// with a word on why, so a migrated config says what changed.
  struct ButtonEntry: Decodable {
    enum Keys: String, CodingKey, CaseIterable {
      case name, address, model
      case twistMode = "twist_mode"
      case latencyMode = "latency_mode"
    }

    var name: String
    var address: BluetoothAddressText
    var model: Model = .flic2
    var twistMode: TwistMode = .dimmer

    init(from decoder: Decoder) throws {
      try decoder.refuseUnknownKeys(Keys.self)
      let table = try decoder.container(keyedBy: Keys.self)
      if table.contains(.latencyMode) {
        throw decoder.mistake("latency_mode", "is flicd's; BlueZ chooses the connection parameters: remove it")
      }
      name = try table.decode(String.self, forKey: .name)
      guard !name.isEmpty, name.utf8.count <= 48,
        name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
      else {
        throw decoder.mistake(
          "name", "'\(name)' must be 1 to 48 lowercase letters, digits or _ (it names ports like \(name).button)")
      }
      let text = try table.decode(String.self, forKey: .address)
      guard let address = BluetoothAddressText(text) else {
        throw decoder.mistake("address", "'\(text)' must be a Bluetooth address like 80:e4:da:71:b6:8e")
      }
      self.address = address
      if let text = try table.decodeIfPresent(String.self, forKey: .model) {
        guard let model = Model(rawValue: text) else {
          let allowed = Model.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
          throw table.mistake(.model, "'\(text)' is not a Flic model this plugin knows: use \(allowed)")
        }
        self.model = model
      }
      if let text = try table.decodeIfPresent(String.self, forKey: .twistMode) {
        guard model == .twist else {
          throw table.mistake(.twistMode, "is for a Flic Twist only: add model = \"twist\" or remove it")
        }
        guard let mode = TwistMode(rawValue: text) else {
          let allowed = TwistMode.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
          throw table.mistake(.twistMode, "'\(text)' is not a Twist mode: use \(allowed)")
        }
        twistMode = mode
      }
    }
  }

  static func hexBytes(_ text: String) -> [UInt8]? {
    guard text.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
      let next = text.index(index, offsetBy: 2)
      guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
      out.append(byte)
      index = next
    }
    return out
  }
}
