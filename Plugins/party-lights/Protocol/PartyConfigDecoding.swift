import PatchbayPluginKit

/// Reads the config's keys, checks each value's range and the combinations, and builds the
/// config. Errors are `PluginError.config` naming the key.
extension PartyConfig: Decodable {
  enum Keys: String, CodingKey, CaseIterable {
    case group, members, lights
    case stepDegrees = "step_degrees"
    case startHue = "start_hue"
    case period = "period_s"
    case bpm, saturation, brightness
    case spreadDegrees = "spread_degrees"
    case direction, order
    case transition = "transition_ms"
    case palette
    case duration = "duration_s"
    case groupRate = "group_rate"
    case lightRate = "light_rate"
    case restoreTransition = "restore_transition_ms"
  }

  public init(from decoder: Decoder) throws {
    try decoder.refuseUnknownKeys(Keys.self)
    let table = try decoder.container(keyedBy: Keys.self)
    func number(_ key: Keys, _ range: ClosedRange<Double>, unit: String = "") throws -> Double? {
      try table.decodeIfPresent(Double.self, forKey: key, in: range, unit: unit)
    }

    let target = try Self.target(
      group: table.decodeIfPresent(String.self, forKey: .group),
      members: table.decodeIfPresent([String].self, forKey: .members),
      lights: table.decodeIfPresent([String].self, forKey: .lights))

    let saturation = try number(.saturation, 0...100, unit: " %") ?? 75
    let brightness = try number(.brightness, 1...100, unit: " %") ?? 100
    let step = try number(.stepDegrees, 0.1...180, unit: "°")
    let palette = try table.decodeIfPresent([PaletteEntry].self, forKey: .palette)
    let source: ColorSource
    if let palette {
      guard step == nil else {
        throw PluginError.config("step_degrees and palette exclude each other: a palette steps one entry at a time")
      }
      guard !palette.isEmpty else {
        throw PluginError.config(
          "palette must list at least one color, like [0, 120, { hue = 240, saturation = 100 }]")
      }
      source = .palette(
        try palette.enumerated().map { index, entry in
          try entry.color(saturation: saturation, brightness: brightness, key: "palette.\(index)")
        })
    } else {
      source = .wheel(
        stepDegrees: step ?? 15, startHue: try number(.startHue, 0...360, unit: "°") ?? 0,
        saturation: saturation, brightness: brightness)
    }

    let period = try number(.period, 0.01...86400, unit: " s")
    let bpm = try number(.bpm, 0.1...6000)
    if period != nil, bpm != nil {
      throw PluginError.config(
        "period_s and bpm exclude each other: give the time of one cycle or the steps per minute")
    }
    let positions = Double(source.positionsPerCycle)
    let interval = bpm.map { 60 / $0 } ?? period.map { $0 / positions } ?? 1

    let spread = try number(.spreadDegrees, -360...360, unit: "°") ?? 0
    if case .group = target, spread != 0 {
      throw PluginError.config(
        "spread_degrees needs per-light targets (lights = [...]): a group gets one color per step")
    }
    let rates = DriverRates(
      kind: { if case .group = target { .group } else { .lights } }(),
      groupPerSecond: try number(.groupRate, 0.01...100, unit: " commands/s") ?? 1,
      lightPerSecond: try number(.lightRate, 0.01...1000, unit: " commands/s") ?? 10)
    let transition = try number(.transition, 0...3_600_000, unit: " ms")
    let plan = EffectPlan(
      source: source,
      direction: try table.decodeChoiceIfPresent(EffectPlan.Direction.self, forKey: .direction)
        ?? .forward,
      order: try table.decodeChoiceIfPresent(EffectPlan.Order.self, forKey: .order) ?? .sequential, spread: spread,
      targetCount: { if case .lights(let names) = target { names.count } else { 1 } }(),
      requestedInterval: interval, transitionMs: transition.map { UInt32($0.rounded()) }, rates: rates)
    let duration = try number(.duration, 0...604_800, unit: " s")
    self.init(
      target: target, plan: plan, duration: duration == 0 ? nil : duration,
      restoreTransitionMs: UInt32((try number(.restoreTransition, 0...60000, unit: " ms") ?? 400).rounded()))
  }

  static func target(group: String?, members: [String]?, lights: [String]?) throws -> Target {
    switch (group, lights) {
    case (let group?, nil):
      try checkName(group, key: "group")
      let members = members ?? []
      try checkNames(members, key: "members")
      return .group(name: group, members: members)
    case (nil, let lights?):
      guard members == nil else { throw PluginError.config("members belongs with group, not with lights") }
      guard !lights.isEmpty else { throw PluginError.config("lights must name at least one light") }
      try checkNames(lights, key: "lights")
      return .lights(lights)
    case (.some, .some):
      throw PluginError.config("group and lights exclude each other: one group target, or several lights")
    case (nil, nil):
      throw PluginError.config(
        "missing required key 'group' (a group target, like group = \"living\") or 'lights' (like lights = [\"lamp1\", \"lamp2\"])"
      )
    }
  }

  static func checkNames(_ names: [String], key: String) throws {
    var seen: Set<String> = []
    for (index, name) in names.enumerated() {
      try checkName(name, key: "\(key).\(index)")
      guard seen.insert(name).inserted else { throw PluginError.config("\(key).\(index): '\(name)' is listed twice") }
    }
  }

  /// Target names become port names (NAME.light, NAME.state); dots let them mirror the
  /// driver's member ports (living.lamp1).
  static func checkName(_ name: String, key: String) throws {
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    guard !name.isEmpty, name.utf8.count <= 64,
      parts.allSatisfy({ part in
        !part.isEmpty
          && part.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
      })
    else {
      throw PluginError.config(
        "\(key) '\(name)' must be lowercase letters, digits and _, in parts joined by dots (it names ports like \(name).light)"
      )
    }
  }
}
