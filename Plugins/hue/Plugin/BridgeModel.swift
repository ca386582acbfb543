import HueProtocol
import PatchbayValues

/// What the plugin knows of the bridge: the lights' last read (or commanded) state and the
/// bridge's groups. `nil` until the bridge was read once.
struct BridgeModel: Sendable {
  var lights: [String: HueLightState] = [:]
  var groups: [String: HueGroup] = [:]
  var wasRead = false

  /// Member ids per bridge group, with group 0 (every light), for the scheduler's order rules.
  var groupMembers: [String: Set<String>] {
    var members = groups.mapValues { Set($0.lights) }
    members["0"] = Set(lights.keys)
    return members
  }

  func members(ofBridgeGroup id: String) -> [String]? {
    if id == "0" { return wasRead ? lights.keys.sorted(by: Self.idOrder) : nil }
    return groups[id]?.lights
  }

  /// The bridge group with exactly these members (the lowest id), if any.
  func bridgeGroup(withMembers members: Set<String>) -> String? {
    if let match = groups.filter({ Set($0.value.lights) == members }).keys.min(by: Self.idOrder) { return match }
    return wasRead && members == Set(lights.keys) ? "0" : nil
  }

  /// Applies what the bridge confirmed: `/lights/1/state/bri` or `/groups/1/action/on` = value.
  mutating func apply(success address: String, value: JSONValue) {
    let parts = address.split(separator: "/").map(String.init)
    guard parts.count == 4, let attribute = parts.last else { return }
    switch (parts[0], parts[2]) {
    case ("lights", "state"): apply(attribute, value, toLight: parts[1])
    case ("groups", "action"):
      for light in members(ofBridgeGroup: parts[1]) ?? [] where lights[light]?.reachable ?? false {
        apply(attribute, value, toLight: light)
      }
    default: break
    }
  }

  private mutating func apply(_ attribute: String, _ value: JSONValue, toLight id: String) {
    guard var state = lights[id] else { return }
    switch attribute {
    case "on": state.on = value.boolValue ?? state.on
    case "bri": state.bri = value.integerValue ?? state.bri
    case "hue":
      state.hue = value.integerValue ?? state.hue
      state.colorMode = .hueSaturation
    case "sat":
      state.sat = value.integerValue ?? state.sat
      state.colorMode = .hueSaturation
    case "ct":
      state.ct = value.integerValue ?? state.ct
      state.colorMode = .colorTemperature
    default: return
    }
    lights[id] = state
  }

  /// "2" before "10".
  static func idOrder(_ a: String, _ b: String) -> Bool {
    (Int(a) ?? Int.max, a) < (Int(b) ?? Int.max, b)
  }
}
