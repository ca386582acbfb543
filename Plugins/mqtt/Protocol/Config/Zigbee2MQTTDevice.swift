import PatchbayPluginKit

/// One `[[zigbee2mqtt]]` entry: a Zigbee2MQTT device by its friendly name, as ready-made ports.
///
/// ```toml
/// [[instances.mqtt.zigbee2mqtt]]
/// device = "Living bulb"      # the friendly name: topics zigbee2mqtt/Living bulb[/set]
/// kind = "light"              # light: NAME.light in, NAME.state out; remote: NAME.action out
/// name = "living_bulb"        # port prefix; default: the device name in lowercase with _
/// ```
public struct Zigbee2MQTTDevice: Sendable, Equatable {
  public enum Kind: String, Sendable {
    case light, remote
  }
  public var device: String
  public var kind: Kind
  public var name: String

  /// The port names.
  public var lightInput: String { "\(name).light" }
  public var stateOutput: String { "\(name).state" }
  public var actionOutput: String { "\(name).action" }
  public var actionTextOutput: String { "\(name).action_text" }

  public func stateTopic(base: String) -> String { TopicFilter.join(base, device) }
  public func setTopic(base: String) -> String { TopicFilter.join(base, device + "/set") }
  public func getTopic(base: String) -> String { TopicFilter.join(base, device + "/get") }
}

extension Zigbee2MQTTDevice: Decodable {
  enum Keys: String, CodingKey, CaseIterable {
    case device, kind, name
  }

  public init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    device = try table.decode(String.self, forKey: .device)
    if let problem = TopicFilter.problemAsTopicName(device) { throw decoder.mistake("device", problem) }
    if device.contains("/") && device.hasSuffix("/set") { throw decoder.mistake("device", "must not end in /set") }
    let kindName = try table.decode(String.self, forKey: .kind)
    guard let kind = Kind(rawValue: kindName) else {
      throw decoder.mistake("kind", "'\(kindName)' must be \"light\" or \"remote\"")
    }
    self.kind = kind
    let given = try table.decodeIfPresent(String.self, forKey: .name)
    name = try PortName.check(given ?? Self.portName(from: device), key: given == nil ? "device" : "name", in: decoder)
  }

  /// "Living Room/Bulb 1" -> "living_room_bulb_1".
  static func portName(from device: String) -> String {
    var name = ""
    for scalar in device.lowercased().unicodeScalars {
      let keep = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
      if keep {
        name.unicodeScalars.append(scalar)
      } else if !name.isEmpty && !name.hasSuffix("_") {
        name += "_"
      }
    }
    while name.hasSuffix("_") { name.removeLast() }
    return name
  }
}
