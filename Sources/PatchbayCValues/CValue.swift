import CPatchbayPlugin
import PatchbayValues

/// Why a C value was refused.
public enum ValueRejection: Error, CustomStringConvertible {
  case unknownType(UInt32)
  case invalid(String)

  public var description: String {
    switch self {
    case .unknownType(let type): "unknown value type \(type)"
    case .invalid(let reason): reason
    }
  }
}

extension Value {
  /// Reads a C value; the pointer is borrowed for this call only. Untrusted: types, actions,
  /// lengths and numbers are all checked (the plugin host reads what plugins publish with it,
  /// the plugin kit what the host delivers).
  public init(checking raw: UnsafePointer<pb_value>) throws(ValueRejection) {
    let size = Int(raw.pointee.size)
    guard size >= 8 else { throw .invalid("pb_value.size \(size) is too small") }
    let value = raw.pointee
    func finite(_ number: Double, _ field: String) throws(ValueRejection) -> Double {
      guard number.isFinite else { throw .invalid("\(field) is not a finite number") }
      return number
    }
    switch value.type {
    case UInt32(PB_VALUE_TRIGGER): self = .trigger
    case UInt32(PB_VALUE_BOOL): self = .bool(value.u.boolean != 0)
    case UInt32(PB_VALUE_INTEGER): self = .integer(value.u.integer)
    case UInt32(PB_VALUE_NUMBER): self = .number(try finite(value.u.number, "number"))
    case UInt32(PB_VALUE_TEXT):
      let text = value.u.text
      guard Int(text.length) <= Value.maximumTextBytes else {
        throw .invalid("text of \(text.length) bytes exceeds \(Value.maximumTextBytes)")
      }
      guard let data = text.data else {
        guard text.length == 0 else { throw .invalid("text data is NULL") }
        self = .text("")
        return
      }
      let bytes = UnsafeRawBufferPointer(start: data, count: Int(text.length))
      guard let string = String(validating: bytes, as: UTF8.self) else { throw .invalid("text is not UTF-8") }
      self = .text(string)
    case UInt32(PB_VALUE_COLOR):
      let c = value.u.color
      self = .color(
        HSBColor(
          hue: try finite(c.hue, "hue"), saturation: try finite(c.saturation, "saturation"),
          brightness: try finite(c.brightness, "brightness")))
    case UInt32(PB_VALUE_LIGHT):
      let c = value.u.light
      var light = LightCommand()
      if c.fields & UInt32(PB_LIGHT_ON) != 0 { light.on = c.on != 0 }
      if c.fields & UInt32(PB_LIGHT_BRIGHTNESS) != 0 { light.brightness = try finite(c.brightness, "brightness") }
      if c.fields & UInt32(PB_LIGHT_COLOR) != 0 {
        light.color = HSBColor(
          hue: try finite(c.color.hue, "hue"), saturation: try finite(c.color.saturation, "saturation"),
          brightness: try finite(c.color.brightness, "color brightness"))
      }
      if c.fields & UInt32(PB_LIGHT_COLOR_TEMPERATURE) != 0 {
        light.colorTemperature = try finite(c.color_temperature, "color_temperature")
      }
      if c.fields & UInt32(PB_LIGHT_TRANSITION) != 0 { light.transitionMs = c.transition_ms }
      self = .light(light)
    case UInt32(PB_VALUE_BUTTON):
      let c = value.u.button
      guard let action = ButtonAction(rawValue: c.action) else { throw .invalid("unknown button action \(c.action)") }
      self = .button(ButtonEvent(action: action, queued: c.queued != 0, ageMs: c.age_ms))
    default:
      throw .unknownType(value.type)
    }
  }

  /// Calls `body` with a C view of the value, valid only during the call.
  public func withCValue<R>(_ body: (UnsafePointer<pb_value>) -> R) -> R {
    var raw = pb_value()
    raw.size = UInt32(MemoryLayout<pb_value>.size)
    raw.type = type.rawValue
    switch self {
    case .trigger: break
    case .bool(let flag): raw.u.boolean = flag ? 1 : 0
    case .integer(let integer): raw.u.integer = integer
    case .number(let number): raw.u.number = number
    case .text(let text):
      return text.withCString { pointer in
        raw.u.text = pb_text(data: pointer, length: UInt32(text.utf8.count))
        return withUnsafePointer(to: &raw, body)
      }
    case .color(let color):
      raw.u.color = pb_color(hue: color.hue, saturation: color.saturation, brightness: color.brightness)
    case .light(let light):
      var c = pb_light()
      if let on = light.on {
        c.fields |= UInt32(PB_LIGHT_ON)
        c.on = on ? 1 : 0
      }
      if let brightness = light.brightness {
        c.fields |= UInt32(PB_LIGHT_BRIGHTNESS)
        c.brightness = brightness
      }
      if let color = light.color {
        c.fields |= UInt32(PB_LIGHT_COLOR)
        c.color = pb_color(hue: color.hue, saturation: color.saturation, brightness: color.brightness)
      }
      if let mired = light.colorTemperature {
        c.fields |= UInt32(PB_LIGHT_COLOR_TEMPERATURE)
        c.color_temperature = mired
      }
      if let transition = light.transitionMs {
        c.fields |= UInt32(PB_LIGHT_TRANSITION)
        c.transition_ms = transition
      }
      raw.u.light = c
    case .button(let button):
      raw.u.button = pb_button(
        action: button.action.rawValue, queued: button.queued ? 1 : 0, age_ms: button.ageMs, reserved: 0)
    }
    return withUnsafePointer(to: &raw, body)
  }
}
