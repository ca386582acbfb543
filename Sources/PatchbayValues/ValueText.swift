/// Why a text could not be read as a value of the expected type.
public struct ValueParseError: Error, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

extension Value: CustomStringConvertible {
  /// The value as one line of JSON text, the same form `patchbay send` reads.
  public var description: String { json.description }

  /// The value as JSON (the form `watch` prints and `send` and config constants read).
  public var json: JSONValue {
    switch self {
    case .trigger: return .string("trigger")
    case .bool(let flag): return .bool(flag)
    case .integer(let number): return .integer(number)
    case .number(let number): return .number(number)
    case .text(let text): return .string(text)
    case .color(let color):
      return .object([
        ("hue", .number(color.hue)), ("saturation", .number(color.saturation)),
        ("brightness", .number(color.brightness)),
      ])
    case .light(let light):
      var members: [(String, JSONValue)] = []
      if let on = light.on { members.append(("on", .bool(on))) }
      if let brightness = light.brightness { members.append(("brightness", .number(brightness))) }
      if let color = light.color {
        members.append(("color", .object([("hue", .number(color.hue)), ("saturation", .number(color.saturation))])))
      }
      if let mired = light.colorTemperature { members.append(("color_temperature", .number(mired))) }
      if let transition = light.transitionMs { members.append(("transition_ms", .integer(Int64(transition)))) }
      return .object(members)
    case .button(let button):
      if !button.queued { return .string(button.action.name) }
      return .object([
        ("action", .string(button.action.name)), ("queued", .bool(true)), ("age_ms", .integer(Int64(button.ageMs))),
      ])
    }
  }
}

extension Value {
  /// Reads command-line text as a value of `type`: JSON, or a bare word where that is clear
  /// (`click`, `on`/`off`, an unquoted text).
  public static func parse(_ text: String, as type: ValueType) throws(ValueParseError) -> Value {
    let trimmed = String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    switch (type, trimmed.lowercased()) {
    case (.trigger, _): return .trigger
    case (.bool, "on"): return .bool(true)
    case (.bool, "off"): return .bool(false)
    case (.text, _) where !trimmed.hasPrefix("\""): return .text(text)
    case (.button, _) where ButtonAction(name: trimmed) != nil:
      return .button(ButtonEvent(action: ButtonAction(name: trimmed)!))
    default: break
    }
    guard let json = JSONValue.parse(trimmed) else {
      throw ValueParseError("'\(text)' is not a \(type.name) value (\(example(for: type)))")
    }
    return try fromJSON(json, as: type)
  }

  /// Reads a decoded JSON (or TOML) value as a value of `type`.
  public static func fromJSON(_ json: JSONValue, as type: ValueType) throws(ValueParseError) -> Value {
    let failure = ValueParseError("expected a \(type.name) value (\(example(for: type))), got \(json.description)")
    switch (type, json) {
    case (.trigger, _): return .trigger
    case (.bool, .bool(let flag)): return .bool(flag)
    case (.integer, .integer(let integer)): return .integer(integer)
    case (.integer, .number(let number)) where Int64(exactly: number) != nil: return .integer(Int64(number))
    case (.number, .integer(let integer)): return .number(Double(integer))
    case (.number, .number(let number)) where number.isFinite: return .number(number)
    case (.text, .string(let text)): return .text(text)
    case (.color, .object):
      guard let hue = json["hue"]?.doubleValue, let saturation = json["saturation"]?.doubleValue else { throw failure }
      let brightness = json["brightness"]?.doubleValue ?? 100
      return .color(HSBColor(hue: hue, saturation: saturation, brightness: brightness))
    case (.light, .object(let members)):
      let known = ["on", "brightness", "color", "color_temperature", "transition_ms"]
      if let unknown = members.map(\.0).first(where: { !known.contains($0) }) {
        throw ValueParseError("unknown light field '\(unknown)' (known: \(known.joined(separator: ", ")))")
      }
      var light = LightCommand()
      if let on = json["on"] {
        guard case .bool(let flag) = on else { throw failure }
        light.on = flag
      }
      if let brightness = json["brightness"] {
        guard let percent = brightness.doubleValue else { throw failure }
        light.brightness = percent
      }
      if let color = json["color"] {
        guard case .color(let parsed) = try fromJSON(color, as: .color) else { throw failure }
        light.color = parsed
      }
      if let mired = json["color_temperature"] {
        guard let value = mired.doubleValue else { throw failure }
        light.colorTemperature = value
      }
      if let transition = json["transition_ms"] {
        guard let ms = transition.doubleValue, ms >= 0, ms <= Double(UInt32.max) else { throw failure }
        light.transitionMs = UInt32(ms)
      }
      return .light(light)
    case (.button, .string(let name)):
      guard let action = ButtonAction(name: name) else { throw failure }
      return .button(ButtonEvent(action: action))
    case (.button, .object):
      guard case .string(let name) = json["action"], let action = ButtonAction(name: name) else { throw failure }
      var queued = false
      if case .bool(let flag) = json["queued"] { queued = flag }
      let age = json["age_ms"]?.doubleValue.map { UInt32(clamping: Int64($0)) } ?? 0
      return .button(ButtonEvent(action: action, queued: queued, ageMs: age))
    default:
      throw failure
    }
  }

  /// A short example of how a value of `type` is written.
  public static func example(for type: ValueType) -> String {
    switch type {
    case .trigger: "trigger"
    case .bool: "true or false"
    case .integer: "for example 42"
    case .number: "for example 0.5"
    case .text: "a string"
    case .color: "{hue = 120, saturation = 75, brightness = 100}"
    case .light: "{on = true, brightness = 80, color = {hue = 30, saturation = 50}}"
    case .button: "one of " + ButtonAction.allCases.map(\.name).joined(separator: ", ")
    }
  }
}
