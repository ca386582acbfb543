import FlicProtocol
import PatchbayPluginKit

/// The flic instance's config: where flicd is, which buttons to watch, and how to report them.
///
/// ```toml
/// host = "127.0.0.1"          # flicd's address (default)
/// port = 5551                 # flicd's port (default)
/// click_events = "single_double_hold"   # or "click_hold": faster clicks, no double click
/// [[instances.buttons.buttons]]
/// name = "bedside"
/// address = "80:e4:da:71:b6:8e"
/// ```
struct FlicConfig: Sendable {
  /// Which flicd event op a button's clicks come from.
  enum ClickEvents: String, Sendable, CaseIterable {
    /// Op 5: a click is reported at once, without waiting for a possible double click.
    case clickHold = "click_hold"
    /// Op 7: waits up to 0.5 s to tell a single from a double click.
    case singleDoubleHold = "single_double_hold"
  }

  struct Button: Sendable, Equatable {
    var name: String
    var address: BluetoothAddress
    var latencyMode: LatencyMode
    /// 0...511 seconds; 511 means never.
    var autoDisconnectSeconds: Int16
  }

  var host = "127.0.0.1"
  var port = 5551
  var buttons: [Button] = []
  var clickEvents = ClickEvents.singleDoubleHold
  /// Queued presses older than this (seconds) are dropped: a light toggling minutes after the
  /// press surprises people.
  var maxQueuedAgeSeconds = 3.0
  var exposeUpDown = false
  /// Keepalive: a ping every interval; the link is dropped if no answer comes in time.
  var pingIntervalSeconds = 10.0
  var pingTimeoutSeconds = 5.0

  /// Parses and checks the instance's JSON config; errors name the key and what is right.
  init(json: String) throws {
    self = try PluginContext.decodeConfig(Self.self, json: json)
  }
}

extension FlicConfig: Decodable {
  enum Keys: String, CodingKey, CaseIterable {
    case host, port, buttons
    case latencyMode = "latency_mode"
    case autoDisconnect = "auto_disconnect_s"
    case clickEvents = "click_events"
    case maxQueuedAge = "max_queued_age_s"
    case exposeUpDown = "expose_up_down"
    case pingInterval = "ping_interval_s"
    case pingTimeout = "ping_timeout_s"
  }

  init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    host = try table.decodeIfPresent(String.self, forKey: .host) ?? host
    port = try table.decodeIfPresent(Int.self, forKey: .port, in: 1...65535) ?? port
    let latency = try ButtonEntry.latency(in: table, forKey: .latencyMode) ?? .normal
    let autoDisconnect = try ButtonEntry.autoDisconnect(in: table, forKey: .autoDisconnect) ?? 511
    clickEvents = try table.decodeChoiceIfPresent(ClickEvents.self, forKey: .clickEvents) ?? clickEvents
    maxQueuedAgeSeconds =
      try table.decodeIfPresent(Double.self, forKey: .maxQueuedAge, in: 0...86400, unit: " s") ?? maxQueuedAgeSeconds
    exposeUpDown = try table.decodeIfPresent(Bool.self, forKey: .exposeUpDown) ?? exposeUpDown
    pingIntervalSeconds =
      try table.decodeIfPresent(Double.self, forKey: .pingInterval, in: 0.1...3600, unit: " s") ?? pingIntervalSeconds
    pingTimeoutSeconds =
      try table.decodeIfPresent(Double.self, forKey: .pingTimeout, in: 0.1...3600, unit: " s") ?? pingTimeoutSeconds

    guard table.contains(.buttons) else {
      throw PluginError.config("missing required key 'buttons' (an array of {name, address})")
    }
    guard (try? table.nestedUnkeyedContainer(forKey: .buttons)) != nil else {
      throw decoder.mistake(
        "buttons", "must be an array of tables like { name = \"bedside\", address = \"80:e4:da:71:b6:8e\" }")
    }
    var seenNames: Set<String> = []
    var seenAddresses: Set<BluetoothAddress> = []
    for (index, entry) in try table.decode([ButtonEntry].self, forKey: .buttons).enumerated() {
      let path = "buttons.\(index)"
      guard seenNames.insert(entry.name).inserted else {
        throw PluginError.config("\(path).name '\(entry.name)' is used twice")
      }
      guard seenAddresses.insert(entry.address).inserted else {
        throw PluginError.config("\(path).address \(entry.address) is used twice")
      }
      buttons.append(
        Button(
          name: entry.name, address: entry.address, latencyMode: entry.latencyMode ?? latency,
          autoDisconnectSeconds: entry.autoDisconnectSeconds ?? autoDisconnect))
    }
  }

  /// One `[[buttons]]` table as written; what it leaves out comes from the instance's keys.
  struct ButtonEntry: Decodable {
    enum Keys: String, CodingKey, CaseIterable {
      case name, address
      case latencyMode = "latency_mode"
      case autoDisconnect = "auto_disconnect_s"
    }

    var name: String
    var address: BluetoothAddress
    var latencyMode: LatencyMode?
    var autoDisconnectSeconds: Int16?

    init(from decoder: Decoder) throws {
      try decoder.refuseUnknownKeys(Keys.self)
      let table = try decoder.container(keyedBy: Keys.self)
      name = try table.decode(String.self, forKey: .name)
      guard !name.isEmpty, name.utf8.count <= 48,
        name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
      else {
        throw decoder.mistake(
          "name",
          "'\(name)' must be 1 to 48 lowercase letters, digits or _ (it names ports like \(name.lowercased()).button)")
      }
      let text = try table.decode(String.self, forKey: .address)
      guard let address = BluetoothAddress(text) else {
        throw decoder.mistake("address", "'\(text)' must be a Bluetooth address like 80:e4:da:71:b6:8e")
      }
      self.address = address
      latencyMode = try Self.latency(in: table, forKey: .latencyMode)
      autoDisconnectSeconds = try Self.autoDisconnect(in: table, forKey: .autoDisconnect)
    }

    static func latency<K>(in table: KeyedDecodingContainer<K>, forKey key: K) throws -> LatencyMode? {
      guard let text = try table.decodeIfPresent(String.self, forKey: key) else { return nil }
      guard let mode = latencyNames[text] else {
        throw table.mistake(key, "must be \"normal\", \"low\" or \"high\", not \"\(text)\"")
      }
      return mode
    }

    static func autoDisconnect<K>(in table: KeyedDecodingContainer<K>, forKey key: K) throws -> Int16? {
      try table.decodeIfPresent(Int.self, forKey: key, in: 0...511, unit: " seconds (511 means never)").map(Int16.init)
    }

    static let latencyNames: [String: LatencyMode] = ["normal": .normal, "low": .low, "high": .high]
  }
}
