import PatchbayValues

extension FrameWriter {
  public mutating func value(_ value: Value) {
    u8(UInt8(value.type.rawValue))
    switch value {
    case .trigger: break
    case .bool(let flag): bool(flag)
    case .integer(let integer): i64(integer)
    case .number(let number): f64(number)
    case .text(let text): string(text)
    case .color(let color): self.color(color)
    case .light(let light):
      var fields: UInt8 = 0
      if light.on != nil { fields |= 1 }
      if light.brightness != nil { fields |= 2 }
      if light.color != nil { fields |= 4 }
      if light.colorTemperature != nil { fields |= 8 }
      if light.transitionMs != nil { fields |= 16 }
      u8(fields)
      if let on = light.on { bool(on) }
      if let brightness = light.brightness { f64(brightness) }
      if let color = light.color { self.color(color) }
      if let mired = light.colorTemperature { f64(mired) }
      if let transition = light.transitionMs { u32(transition) }
    case .button(let button):
      u8(UInt8(button.action.rawValue))
      bool(button.queued)
      u32(button.ageMs)
    }
  }

  mutating func color(_ color: HSBColor) {
    f64(color.hue)
    f64(color.saturation)
    f64(color.brightness)
  }
}

extension FrameReader {
  public mutating func value() throws(WireError) -> Value {
    let tag = try u8()
    guard let type = ValueType(rawValue: UInt32(tag)) else { throw .invalid("unknown value type \(tag)") }
    switch type {
    case .trigger: return .trigger
    case .bool: return .bool(try bool())
    case .integer: return .integer(try i64())
    case .number: return .number(try finite())
    case .text: return .text(try string(maxBytes: Value.maximumTextBytes))
    case .color: return .color(try color())
    case .light:
      let fields = try u8()
      guard fields & ~31 == 0 else { throw .invalid("unknown light fields \(fields)") }
      var light = LightCommand()
      if fields & 1 != 0 { light.on = try bool() }
      if fields & 2 != 0 { light.brightness = try finite() }
      if fields & 4 != 0 { light.color = try color() }
      if fields & 8 != 0 { light.colorTemperature = try finite() }
      if fields & 16 != 0 { light.transitionMs = try u32() }
      return .light(light)
    case .button:
      let raw = try u8()
      guard let action = ButtonAction(rawValue: UInt32(raw)) else { throw .invalid("unknown button action \(raw)") }
      return .button(ButtonEvent(action: action, queued: try bool(), ageMs: try u32()))
    }
  }

  mutating func finite() throws(WireError) -> Double {
    let number = try f64()
    guard number.isFinite else { throw .invalid("number is not finite") }
    return number
  }

  mutating func color() throws(WireError) -> HSBColor {
    HSBColor(hue: try finite(), saturation: try finite(), brightness: try finite())
  }
}
