import PatchbayValues

/// A Zigbee2MQTT remote's `action` field as a button event where it is one.
public enum Zigbee2MQTTRemote {
  /// The action word in a report as received (the bytes of a `zigbee2mqtt/DEVICE` message).
  public static func action(fromPayload payload: [UInt8]) throws(PayloadError) -> String? {
    guard let json = JSONValue.parse(String(decoding: payload, as: UTF8.self)) else {
      throw PayloadError("payload is not JSON")
    }
    return try action(fromState: json)
  }

  /// The action word in a device report: nil for a report without one or with the empty
  /// action that follows a press.
  public static func action(fromState state: JSONValue) throws(PayloadError) -> String? {
    guard case .object = state else { throw PayloadError("a remote report must be a JSON object") }
    guard let action = state["action"] else { return nil }
    switch action {
    case .null: return nil
    case .string(let word): return word.isEmpty ? nil : word
    default: throw PayloadError("action \(action) is not a string")
    }
  }

  /// The button event for the common action words (`single`, `double`, `hold`, `release`,
  /// and the `*_click`, `*_double`, `*_hold`, `*_release`, `*_press` forms); nil for others
  /// (such as `brightness_move_up`), which only reach the `action_text` port.
  public static func buttonAction(_ word: String) -> ButtonAction? {
    let last = word.split(separator: "_").last.map(String.init) ?? word
    switch word {
    case "single", "click", "toggle", "on", "off": return .click
    case "double": return .doubleClick
    case "hold", "long": return .hold
    case "release": return .up
    case "press": return .down
    default: break
    }
    switch last {
    case "click", "single": return .click
    case "double": return .doubleClick
    case "hold": return .hold
    case "release": return .up
    case "press": return .down
    default: return nil
    }
  }
}
