import PatchbayValues

/// Between the hub's light values (percent, degrees, mired, milliseconds) and Zigbee2MQTT's
/// light JSON (`state` ON/OFF, `brightness` 0-254, `color` {hue 0-360, saturation 0-100},
/// `color_temp` mired, `transition` seconds).
public enum Zigbee2MQTTLight {
  public static let brightnessRange = 0...254
  /// Color temperatures a bulb can be asked for, in mired (10,000 K to 1,000 K).
  public static let miredRange = 50.0...1000.0

  /// The `/set` payload for a hub command. Color wins over color temperature when a command
  /// carries both (a bulb shows one or the other), as in the hue plugin.
  public static func setPayload(_ command: LightCommand) -> JSONValue {
    var members: [(String, JSONValue)] = []
    if let on = command.on { members.append(("state", .string(on ? "ON" : "OFF"))) }
    if let brightness = command.brightness {
      members.append(("brightness", .integer(Int64(brightnessLevel(percent: brightness)))))
    }
    if let color = command.color?.normalized {
      members.append(
        ("color", .object([("hue", .number(rounded(color.hue))), ("saturation", .number(rounded(color.saturation)))])))
    } else if let mired = command.colorTemperature, mired.isFinite {
      members.append(
        ("color_temp", .integer(Int64(min(max(mired, miredRange.lowerBound), miredRange.upperBound).rounded()))))
    }
    if let transition = command.transitionMs { members.append(("transition", .number(Double(transition) / 1000))) }
    return .object(members)
  }

  /// A state report as received (the bytes of a `zigbee2mqtt/DEVICE` message).
  public static func command(fromPayload payload: [UInt8]) throws(PayloadError) -> LightCommand {
    guard let json = JSONValue.parse(String(decoding: payload, as: UTF8.self)) else {
      throw PayloadError("payload is not JSON")
    }
    return try command(fromState: json)
  }

  /// A device's state report as a hub light value; nil fields were not reported.
  public static func command(fromState state: JSONValue) throws(PayloadError) -> LightCommand {
    guard case .object = state else { throw PayloadError("a light state must be a JSON object") }
    var command = LightCommand()
    if let word = state["state"] {
      guard case .string(let text) = word, ["ON", "OFF"].contains(text.uppercased()) else {
        throw PayloadError("state \(word) is not ON or OFF")
      }
      command.on = text.uppercased() == "ON"
    }
    if let level = state["brightness"] {
      // Compared as a Double: Int(37069e15) would trap (found by the fuzzer).
      guard let number = level.doubleValue, number.rounded() >= Double(brightnessRange.lowerBound),
        number.rounded() <= Double(brightnessRange.upperBound)
      else {
        throw PayloadError("brightness \(level) is not 0...254")
      }
      command.brightness = percent(level: number)
    }
    let mode = state["color_mode"].flatMap { value -> String? in
      if case .string(let text) = value { return text }
      return nil
    }
    let hue = state["color"]?["hue"]?.doubleValue
    let saturation = state["color"]?["saturation"]?.doubleValue
    let mired = state["color_temp"]?.doubleValue
    if mode == "color_temp", let mired {
      command.colorTemperature = try checkedMired(mired)
    } else if let hue, let saturation {
      guard (0...360).contains(hue), (0...100).contains(saturation) else {
        throw PayloadError("color hue \(hue) / saturation \(saturation) out of range (0...360, 0...100)")
      }
      command.color = HSBColor(hue: hue == 360 ? 0 : hue, saturation: saturation, brightness: command.brightness ?? 100)
    } else if let mired {
      command.colorTemperature = try checkedMired(mired)
    }
    return command
  }

  /// A reported color temperature the hub passes on (found by the fuzzer: any number passed).
  static func checkedMired(_ mired: Double) throws(PayloadError) -> Double {
    guard miredRange.contains(mired) else {
      throw PayloadError(
        "color_temp \(JSONValue.number(mired).description) is not \(Int(miredRange.lowerBound))...\(Int(miredRange.upperBound)) mired"
      )
    }
    return mired
  }

  /// Percent [0, 100] to 0...254.
  public static func brightnessLevel(percent: Double) -> Int {
    guard percent.isFinite else { return 0 }
    // Clamped before the conversion: a hub value of any size must not trap.
    return Int((min(max(percent, 0), 100) / 100 * 254).rounded())
  }

  public static func percent(level: Double) -> Double { rounded(min(max(level, 0), 254) / 254 * 100) }

  /// Four decimals, like the hue plugin: a state converts back to the same level.
  static func rounded(_ value: Double) -> Double { (value * 10000).rounded() / 10000 }
}
