import PatchbayValues

/// The body of `PUT /lights/ID/state` or `PUT /groups/ID/action`, in the API's units; nil
/// fields are not sent. Values are expected in range (see `HueUnits`).
public struct HueStateChange: Sendable, Hashable {
  public var on: Bool?
  /// 1...254.
  public var bri: Int?
  /// 0...65535.
  public var hue: Int?
  /// 0...254.
  public var sat: Int?
  /// Mired 153...500.
  public var ct: Int?
  /// In 100 ms steps.
  public var transitionTime: Int?

  public init(
    on: Bool? = nil, bri: Int? = nil, hue: Int? = nil, sat: Int? = nil, ct: Int? = nil, transitionTime: Int? = nil
  ) {
    self.on = on
    self.bri = bri
    self.hue = hue
    self.sat = sat
    self.ct = ct
    self.transitionTime = transitionTime
  }

  /// True when nothing would be sent.
  public var isEmpty: Bool { self == HueStateChange() || self == HueStateChange(transitionTime: transitionTime) }

  /// This change followed by `newer`: newer fields win, and a newer color mode (hue/sat or ct)
  /// replaces the older one, so sending the result leaves the light as sending both would.
  public func followed(by newer: HueStateChange) -> HueStateChange {
    var result = self
    if newer.hue != nil || newer.sat != nil { result.ct = nil }
    if newer.ct != nil {
      result.hue = nil
      result.sat = nil
    }
    result.on = newer.on ?? result.on
    result.bri = newer.bri ?? result.bri
    result.hue = newer.hue ?? result.hue
    result.sat = newer.sat ?? result.sat
    result.ct = newer.ct ?? result.ct
    result.transitionTime = newer.transitionTime ?? result.transitionTime
    return result
  }

  /// This change without what `newer` sets (including the other color mode): what is left to
  /// send before or after `newer` without undoing it.
  public func removing(_ newer: HueStateChange) -> HueStateChange {
    var result = self
    let newerColor = newer.hue != nil || newer.sat != nil || newer.ct != nil
    if newer.on != nil { result.on = nil }
    if newer.bri != nil { result.bri = nil }
    if newerColor {
      result.hue = nil
      result.sat = nil
      result.ct = nil
    }
    if result.on == nil && result.bri == nil && result.hue == nil && result.sat == nil && result.ct == nil {
      result.transitionTime = nil
    }
    return result
  }

  public var json: JSONValue {
    var members: [String: JSONValue] = [:]
    if let on { members["on"] = .bool(on) }
    if let bri { members["bri"] = .integer(Int64(bri)) }
    if let hue { members["hue"] = .integer(Int64(hue)) }
    if let sat { members["sat"] = .integer(Int64(sat)) }
    if let ct { members["ct"] = .integer(Int64(ct)) }
    if let transitionTime { members["transitiontime"] = .integer(Int64(transitionTime)) }
    return .sortedObject(members)
  }
}
