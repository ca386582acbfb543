import CPatchbayPlugin

extension Value {
  /// Reads a borrowed C value; nil when its type is unknown or its button action is invalid.
  init?(borrowing raw: UnsafePointer<pb_value>) {
    let value = raw.pointee
    switch value.type {
    case UInt32(PB_VALUE_TRIGGER): self = .trigger
    case UInt32(PB_VALUE_BOOL): self = .bool(value.u.boolean != 0)
    case UInt32(PB_VALUE_INTEGER): self = .integer(value.u.integer)
    case UInt32(PB_VALUE_NUMBER): self = .number(value.u.number)
    case UInt32(PB_VALUE_TEXT):
      let text = value.u.text
      guard let data = text.data else {
        self = .text("")
        return
      }
      let bytes = UnsafeRawBufferPointer(start: data, count: Int(text.length))
      self = .text(String(decoding: bytes, as: UTF8.self))
    case UInt32(PB_VALUE_COLOR): self = .color(HSBColor(value.u.color))
    case UInt32(PB_VALUE_LIGHT):
      let light = value.u.light
      let fields = light.fields
      self = .light(
        LightCommand(
          on: fields & UInt32(PB_LIGHT_ON) != 0 ? light.on != 0 : nil,
          brightness: fields & UInt32(PB_LIGHT_BRIGHTNESS) != 0 ? light.brightness : nil,
          color: fields & UInt32(PB_LIGHT_COLOR) != 0 ? HSBColor(light.color) : nil,
          colorTemperature: fields & UInt32(PB_LIGHT_COLOR_TEMPERATURE) != 0 ? light.color_temperature : nil,
          transitionMs: fields & UInt32(PB_LIGHT_TRANSITION) != 0 ? light.transition_ms : nil))
    case UInt32(PB_VALUE_BUTTON):
      let button = value.u.button
      guard let action = ButtonAction(rawValue: button.action) else { return nil }
      self = .button(ButtonEvent(action: action, queued: button.queued != 0, ageMs: button.age_ms))
    default:
      return nil
    }
  }

  /// Calls `body` with a C view of the value, valid only during the call.
  func withCValue<R>(_ body: (UnsafePointer<pb_value>) -> R) -> R {
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
        raw.u.text = pb_text(data: pointer, length: UInt32(min(text.utf8.count, 4096)))
        return withUnsafePointer(to: &raw, body)
      }
    case .color(let color): raw.u.color = color.cColor
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
        c.color = color.cColor
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

extension HSBColor {
  init(_ c: pb_color) { self.init(hue: c.hue, saturation: c.saturation, brightness: c.brightness) }
  var cColor: pb_color { pb_color(hue: hue, saturation: saturation, brightness: brightness) }
}
