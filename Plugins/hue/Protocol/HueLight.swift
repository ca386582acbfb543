import PatchbayValues

/// How a light currently shows its color (`colormode`).
public enum HueColorMode: String, Sendable, Hashable, Codable {
  case hueSaturation = "hs"
  case colorTemperature = "ct"
  case xy
}

/// A light's `state` object as `GET /lights` reports it. Fields a light does not support are
/// absent (a dimmable bulb has no `hue`).
public struct HueLightState: Sendable, Hashable {
  public var on: Bool
  public var bri: Int?
  public var hue: Int?
  public var sat: Int?
  public var ct: Int?
  public var colorMode: HueColorMode?
  public var reachable: Bool

  public init(
    on: Bool, bri: Int? = nil, hue: Int? = nil, sat: Int? = nil, ct: Int? = nil, colorMode: HueColorMode? = nil,
    reachable: Bool = true
  ) {
    self.on = on
    self.bri = bri
    self.hue = hue
    self.sat = sat
    self.ct = ct
    self.colorMode = colorMode
    self.reachable = reachable
  }

  public var json: JSONValue {
    var members: [String: JSONValue] = ["on": .bool(on), "reachable": .bool(reachable), "alert": .string("none")]
    if let bri { members["bri"] = .integer(Int64(bri)) }
    if let hue { members["hue"] = .integer(Int64(hue)) }
    if let sat { members["sat"] = .integer(Int64(sat)) }
    if let ct { members["ct"] = .integer(Int64(ct)) }
    if let colorMode { members["colormode"] = .string(colorMode.rawValue) }
    return .sortedObject(members)
  }
}

/// A light as `GET /lights` lists it.
public struct HueLight: Sendable, Hashable {
  public var name: String
  public var type: String
  public var state: HueLightState

  public init(name: String, type: String = "Extended color light", state: HueLightState) {
    self.name = name
    self.type = type
    self.state = state
  }

  public var json: JSONValue {
    .sortedObject([
      "name": .string(name), "type": .string(type), "state": state.json,
      "modelid": .string("LCT015"), "manufacturername": .string("Signify Netherlands B.V."),
    ])
  }
}

/// A group as `GET /groups` lists it. `action` holds the last values sent to the group, not
/// live state; members are light ids.
public struct HueGroup: Sendable, Hashable {
  public var name: String
  public var type: String
  public var lights: [String]
  public var anyOn: Bool
  public var allOn: Bool

  public init(name: String, type: String = "Room", lights: [String], anyOn: Bool = false, allOn: Bool = false) {
    self.name = name
    self.type = type
    self.lights = lights
    self.anyOn = anyOn
    self.allOn = allOn
  }
}
