import PatchbayValues

#if canImport(Glibc)
  import Glibc
#endif

/// Values crossing between hub ports and characteristics. A controller's write is checked
/// against the characteristic's format and range (nil: HAP status -70410, invalid value); a
/// hub value of the wrong type or out of range is not passed on (nil). Every number stored,
/// and so every number a GET answer or an EVENT carries, is on the characteristic's declared
/// step (`minStep`) and within its range: controllers check that (Saturation 90.1575 from a
/// color converted back is not a value of a characteristic with minStep 1).
enum CharacteristicValue {
  /// The controller's value, in the characteristic's format, or nil when it does not fit.
  static func fromController(_ json: JSONValue, for characteristic: Characteristic) -> JSONValue? {
    switch characteristic.format {
    case .bool:
      switch json {
      case .bool(let flag): return .bool(flag)
      // HAP allows 0 and 1 for bool; several controllers send them.
      case .integer(0), .number(0): return .bool(false)
      case .integer(1), .number(1): return .bool(true)
      default: return nil
      }
    case .uint8, .uint32, .int:
      guard let number = json.doubleValue, number == number.rounded(), inRange(number, characteristic) else {
        return nil
      }
      return .integer(Int64(number))
    case .float:
      guard let number = json.doubleValue, number.isFinite, inRange(number, characteristic) else { return nil }
      return .number(onStep(number, characteristic))
    case .string:
      guard case .string(let text) = json, text.utf8.count <= 64 else { return nil }
      return .string(text)
    }
  }

  /// A hub value for `characteristic`, or nil when its type does not fit or (unless
  /// `clamping`) it is out of range.
  static func fromHub(_ value: Value, for characteristic: Characteristic, clamping: Bool = false) -> JSONValue? {
    let number: Double
    switch (characteristic.format, value) {
    case (.bool, .bool(let flag)): return .bool(flag)
    case (.string, .text(let text)): return .string(String(text.prefix(64)))
    case (.uint8, .integer(let integer)), (.uint32, .integer(let integer)), (.int, .integer(let integer)),
      (.float, .integer(let integer)):
      number = Double(integer)
    case (.uint8, .number(let real)), (.uint32, .number(let real)), (.int, .number(let real)),
      (.float, .number(let real)):
      number = real
    // A bool for a 0/1 characteristic (OccupancyDetected, ContactSensorState, StatusLowBattery).
    case (.uint8, .bool(let flag)) where characteristic.minimum == 0 && characteristic.maximum == 1:
      number = flag ? 1 : 0
    default:
      return nil
    }
    guard number.isFinite else { return nil }
    var fitted = number
    if !inRange(number, characteristic) {
      guard clamping else { return nil }
      fitted = min(max(number, characteristic.minimum ?? number), characteristic.maximum ?? number)
    }
    fitted = onStep(fitted, characteristic)
    return characteristic.format == .float ? .number(fitted) : .integer(Int64(fitted.rounded()))
  }

  /// The nearest value `minimum + n * step` within the range. Decimal steps (0.1) are rounded
  /// to their decimals, so 21.5 is sent as 21.5, not 21.500000000000057.
  static func onStep(_ number: Double, _ characteristic: Characteristic) -> Double {
    guard let step = characteristic.step, step > 0, number.isFinite else { return number }
    let base = characteristic.minimum ?? 0
    var snapped = base + ((number - base) / step).rounded() * step
    let decimals = max(0, min(10, Int((-log10(step)).rounded(.up))))
    let scale = pow(10, Double(decimals))
    snapped = (snapped * scale).rounded() / scale
    if let maximum = characteristic.maximum, snapped > maximum { snapped -= step }
    if let minimum = characteristic.minimum, snapped < minimum { snapped += step }
    return snapped
  }

  /// A characteristic's value (already valid) as a value for its hub port.
  static func toHub(_ json: JSONValue, for characteristic: Characteristic) -> Value? {
    switch (characteristic.valueType, json) {
    case (.bool, .bool(let flag)): .bool(flag)
    case (.integer, _): json.doubleValue.map { .integer(Int64($0)) }
    case (.number, _): json.doubleValue.map { .number($0) }
    case (.text, .string(let text)): .text(text)
    default: nil
    }
  }

  private static func inRange(_ number: Double, _ characteristic: Characteristic) -> Bool {
    // A float's range is checked with a little slack for rounding on the controller's side.
    let slack = characteristic.format == .float ? 1e-9 : 0
    if let minimum = characteristic.minimum, number < minimum - slack { return false }
    if let maximum = characteristic.maximum, number > maximum + slack { return false }
    return true
  }
}
