import HAP
import PatchbayValues

/// Characteristic values to hub values and back, per service kind.
package enum ServiceValues {
  /// The hub value of a non-light service's characteristic (nil: not one the kind reports).
  package static func value(of service: ServicePorts, type: String, _ raw: JSONValue) -> Value? {
    switch (service.kind, type) {
    case (.outlet, HAPType.on), (.switch, HAPType.on): return flag(raw).map(Value.bool)
    // ContactSensorState: 0 contact detected (closed), 1 not detected (open).
    case (.contact, "6A"): return raw.integerValue.map { .bool($0 != 0) }
    case (.motion, "22"): return flag(raw).map(Value.bool)
    case (.temperature, "11"), (.humidity, "10"): return raw.doubleValue.map(Value.number)
    case (.battery, "68"): return raw.integerValue.map { .integer(Int64($0)) }
    case (.button, "73"):
      // ProgrammableSwitchEvent: 0 single, 1 double, 2 long press.
      let actions: [Int: ButtonAction] = [0: .click, 1: .doubleClick, 2: .hold]
      return raw.integerValue.flatMap { actions[$0] }.map { .button(ButtonEvent(action: $0)) }
    default: return nil
    }
  }

  /// The hub value of an `.other` service's characteristic, by its format (nil: a value that
  /// is not of it).
  package static func value(of reading: ServicePorts.Reading, _ raw: JSONValue) -> Value? {
    switch reading.valueType {
    case .bool: flag(raw).map(Value.bool)
    case .integer: raw.integerValue.map { .integer(Int64($0)) } ?? raw.doubleValue.map { .integer(Int64($0.rounded())) }
    case .number: raw.doubleValue.map(Value.number)
    case .text: raw.stringValue.map(Value.text)
    default: nil
    }
  }

  /// A light's state after one characteristic changed.
  package static func light(_ state: LightCommand, type: String, _ raw: JSONValue) -> LightCommand {
    var state = state
    switch type {
    case HAPType.on: state.on = flag(raw) ?? state.on
    case HAPType.brightness: state.brightness = raw.doubleValue ?? state.brightness
    case HAPType.hue, HAPType.saturation:
      var color = state.color ?? HSBColor(hue: 0, saturation: 0, brightness: 100)
      if type == HAPType.hue { color.hue = raw.doubleValue ?? color.hue }
      if type == HAPType.saturation { color.saturation = raw.doubleValue ?? color.saturation }
      state.color = color
      state.colorTemperature = nil
    case HAPType.colorTemperature:
      state.colorTemperature = raw.doubleValue ?? state.colorTemperature
    default: break
    }
    return state
  }

  /// What a hub value on a service's input becomes: one write per characteristic.
  package static func writes(_ value: Value, to service: ServicePorts) -> [HAPWrite] {
    func write(_ type: String, _ raw: JSONValue) -> HAPWrite? { service.id(type).map { HAPWrite(id: $0, value: raw) } }
    switch (service.kind, value) {
    case (.outlet, .bool(let on)), (.switch, .bool(let on)): return [write(HAPType.on, .bool(on))].compactMap { $0 }
    case (.light, .light(let light)):
      var writes: [HAPWrite?] = []
      if let on = light.on { writes.append(write(HAPType.on, .bool(on))) }
      if let brightness = light.brightness, brightness.isFinite {
        writes.append(write(HAPType.brightness, .integer(Int64(min(max(brightness, 0), 100).rounded()))))
      }
      if let color = light.color?.normalized {
        writes.append(write(HAPType.hue, .number(color.hue.rounded())))
        writes.append(write(HAPType.saturation, .number(color.saturation.rounded())))
      } else if let mired = light.colorTemperature, mired.isFinite {
        // HAP's range is 140–500 mired (50–400 on some accessories, which refuse the rest).
        writes.append(write(HAPType.colorTemperature, .integer(Int64(min(max(mired, 140), 500).rounded()))))
      }
      return writes.compactMap { $0 }
    default: return []
    }
  }

  /// HAP booleans come as true/false or 1/0.
  package static func flag(_ raw: JSONValue) -> Bool? {
    if case .bool(let flag) = raw { return flag }
    return raw.integerValue.map { $0 != 0 }
  }
}
