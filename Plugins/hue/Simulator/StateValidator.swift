import HueProtocol
import PatchbayValues

/// Checks a `PUT .../state` or `.../action` body like a bridge: unknown parameters (6),
/// wrong types or out-of-range values (7), and answers per attribute.
struct StateValidator {
  /// The parameters a light takes, with their ranges (nil: not a number).
  static let ranges: [String: ClosedRange<Double>?] = [
    "on": nil, "bri": 1...254, "hue": 0...65535, "sat": 0...254, "ct": 153...500, "xy": nil,
    "transitiontime": 0...65535, "alert": nil, "effect": nil, "bri_inc": -254...254, "sat_inc": -254...254,
    "hue_inc": -65534...65534, "ct_inc": -65534...65534,
  ]

  /// The parameters that a light which is off refuses (error 201).
  static let needsOn: Set<String> = [
    "bri", "hue", "sat", "ct", "xy", "effect", "bri_inc", "sat_inc", "hue_inc", "ct_inc",
  ]

  /// The valid attributes of `body` and an error per invalid one; `prefix` is like `/lights/1/state`.
  static func validate(_ body: [String: JSONValue], prefix: String) -> (
    valid: [String: JSONValue], errors: [HueAPIError]
  ) {
    var valid: [String: JSONValue] = [:]
    var errors: [HueAPIError] = []
    for (key, value) in body.sorted(by: { $0.key < $1.key }) {
      let address = "\(prefix)/\(key)"
      guard let range = ranges[key] else {
        errors.append(HueAPIError(.parameterNotAvailable, address: address, detail: "parameter, \(key), not available"))
        continue
      }
      if isValid(key, value, range) {
        valid[key] = value
      } else {
        errors.append(
          HueAPIError(.invalidValue, address: address, detail: "invalid value, \(value.text), for parameter, \(key)"))
      }
    }
    return (valid, errors)
  }

  private static func isValid(_ key: String, _ value: JSONValue, _ range: ClosedRange<Double>?) -> Bool {
    switch key {
    case "on": return value.boolValue != nil
    case "alert": return ["none", "select", "lselect"].contains(value.stringValue ?? "")
    case "effect": return ["none", "colorloop"].contains(value.stringValue ?? "")
    case "xy":
      guard let pair = value.arrayValue, pair.count == 2 else { return false }
      return pair.allSatisfy { ($0.doubleValue ?? -1) >= 0 && ($0.doubleValue ?? 2) <= 1 }
    default:
      guard let integer = value.integerValue, let range else { return false }
      return range.contains(Double(integer))
    }
  }
}
