import FlicProtocol
import Foundation
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

  static let topKeys = [
    "host", "port", "buttons", "latency_mode", "auto_disconnect_s", "click_events", "max_queued_age_s",
    "expose_up_down", "ping_interval_s", "ping_timeout_s",
  ]
  static let buttonKeys = ["name", "address", "latency_mode", "auto_disconnect_s"]
  static let latencyNames: [String: LatencyMode] = ["normal": .normal, "low": .low, "high": .high]

  /// Parses and checks the instance's JSON config; errors name the key and what is right.
  init(json: String) throws {
    guard case .table(let root) = ConfigValue.parse(json) else { throw PluginError.config("the config is not a table") }
    try Self.refuseUnknownKeys(root, known: Self.topKeys, path: "")

    if let value = root["host"] { host = try Self.string(value, "host") }
    if let value = root["port"] {
      let port = try Self.integer(value, "port")
      guard (1...65535).contains(port) else { throw PluginError.config("port must be 1...65535, not \(port)") }
      self.port = port
    }
    let globalLatency = try root["latency_mode"].map { try Self.latency($0, "latency_mode") } ?? .normal
    let globalAutoDisconnect =
      try root["auto_disconnect_s"].map { try Self.autoDisconnect($0, "auto_disconnect_s") } ?? 511
    if let value = root["click_events"] {
      let text = try Self.string(value, "click_events")
      guard let mode = ClickEvents(rawValue: text) else {
        throw PluginError.config("click_events must be \"click_hold\" or \"single_double_hold\", not \"\(text)\"")
      }
      clickEvents = mode
    }
    if let value = root["max_queued_age_s"] {
      maxQueuedAgeSeconds = try Self.number(value, "max_queued_age_s", range: 0...86400)
    }
    if let value = root["expose_up_down"] {
      guard case .bool(let flag) = value else { throw PluginError.config("expose_up_down must be true or false") }
      exposeUpDown = flag
    }
    if let value = root["ping_interval_s"] {
      pingIntervalSeconds = try Self.number(value, "ping_interval_s", range: 0.1...3600)
    }
    if let value = root["ping_timeout_s"] {
      pingTimeoutSeconds = try Self.number(value, "ping_timeout_s", range: 0.1...3600)
    }

    guard let list = root["buttons"] else {
      throw PluginError.config("missing required key 'buttons' (an array of {name, address})")
    }
    guard case .array(let entries) = list else {
      throw PluginError.config(
        "buttons must be an array of tables like { name = \"bedside\", address = \"80:e4:da:71:b6:8e\" }")
    }
    var seenNames: Set<String> = []
    var seenAddresses: Set<BluetoothAddress> = []
    for (index, entry) in entries.enumerated() {
      let path = "buttons.\(index)"
      guard case .table(let table) = entry else {
        throw PluginError.config("\(path) must be a table with name and address")
      }
      try Self.refuseUnknownKeys(table, known: Self.buttonKeys, path: path + ".")
      guard let rawName = table["name"] else { throw PluginError.config("missing required key '\(path).name'") }
      let name = try Self.string(rawName, "\(path).name")
      guard !name.isEmpty, name.utf8.count <= 48,
        name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
      else {
        throw PluginError.config(
          "\(path).name '\(name)' must be 1 to 48 lowercase letters, digits or _ (it names ports like \(name.lowercased()).button)"
        )
      }
      guard seenNames.insert(name).inserted else { throw PluginError.config("\(path).name '\(name)' is used twice") }
      guard let rawAddress = table["address"] else {
        throw PluginError.config("missing required key '\(path).address'")
      }
      let text = try Self.string(rawAddress, "\(path).address")
      guard let address = BluetoothAddress(text) else {
        throw PluginError.config("\(path).address '\(text)' must be a Bluetooth address like 80:e4:da:71:b6:8e")
      }
      guard seenAddresses.insert(address).inserted else {
        throw PluginError.config("\(path).address \(address) is used twice")
      }
      buttons.append(
        Button(
          name: name, address: address,
          latencyMode: try table["latency_mode"].map { try Self.latency($0, "\(path).latency_mode") } ?? globalLatency,
          autoDisconnectSeconds: try table["auto_disconnect_s"].map {
            try Self.autoDisconnect($0, "\(path).auto_disconnect_s")
          }
            ?? globalAutoDisconnect))
    }
  }

  init() {}

  private static func refuseUnknownKeys(_ table: [String: ConfigValue], known: [String], path: String) throws {
    for key in table.keys.sorted() where !known.contains(key) {
      throw PluginError.unknownKey(key, known: known, path: path)
    }
  }

  private static func string(_ value: ConfigValue, _ key: String) throws -> String {
    guard case .string(let text) = value else { throw PluginError.config("\(key) must be a string") }
    return text
  }

  private static func integer(_ value: ConfigValue, _ key: String) throws -> Int {
    guard case .number(let number) = value, number == number.rounded(), abs(number) < 1e15 else {
      throw PluginError.config("\(key) must be an integer")
    }
    return Int(number)
  }

  private static func number(_ value: ConfigValue, _ key: String, range: ClosedRange<Double>) throws -> Double {
    guard case .number(let number) = value else { throw PluginError.config("\(key) must be a number") }
    guard range.contains(number) else {
      throw PluginError.config("\(key) must be between \(range.lowerBound) and \(range.upperBound), not \(number)")
    }
    return number
  }

  private static func latency(_ value: ConfigValue, _ key: String) throws -> LatencyMode {
    let text = try string(value, key)
    guard let mode = latencyNames[text] else {
      throw PluginError.config("\(key) must be \"normal\", \"low\" or \"high\", not \"\(text)\"")
    }
    return mode
  }

  private static func autoDisconnect(_ value: ConfigValue, _ key: String) throws -> Int16 {
    let seconds = try integer(value, key)
    guard (0...511).contains(seconds) else {
      throw PluginError.config("\(key) must be 0...511 seconds (511 means never), not \(seconds)")
    }
    return Int16(seconds)
  }
}
