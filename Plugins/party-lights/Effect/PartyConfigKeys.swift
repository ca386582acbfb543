import PatchbayPluginKit

extension PartyConfig {
  /// Reads the config's keys, checks each value's range and the combinations, and builds the
  /// config. Errors are `PluginError.config` naming the key.
  struct Keys: Decodable {
    let config: PartyConfig

    struct Key: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }
      init(_ name: String) { stringValue = name }
      init?(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { nil }
    }

    static let known = [
      "group", "members", "lights", "step_degrees", "start_hue", "period_s", "bpm", "saturation", "brightness",
      "spread_degrees", "direction", "order", "transition_ms", "palette", "duration_s", "group_rate", "light_rate",
      "restore_transition_ms",
    ]

    init(from decoder: Decoder) throws {
      let keys = try decoder.container(keyedBy: Key.self)
      for key in keys.allKeys.map(\.stringValue).sorted() where !Self.known.contains(key) {
        throw PluginError.unknownKey(key, known: Self.known)
      }
      func value<T: Decodable>(_ name: String, _ type: T.Type) throws -> T? {
        try keys.decodeIfPresent(type, forKey: Key(name))
      }
      func number(_ name: String, _ range: ClosedRange<Double>, unit: String = "") throws -> Double? {
        guard let number = try value(name, Double.self) else { return nil }
        guard range.contains(number) else {
          throw PluginError.config(
            "\(name) must be between \(EffectPlan.format(range.lowerBound)) and "
              + "\(EffectPlan.format(range.upperBound))\(unit), not \(EffectPlan.format(number))")
        }
        return number
      }
      func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ type: T.Type) throws -> T?
      where T.RawValue == String {
        guard let text = try value(name, String.self) else { return nil }
        guard let choice = T(rawValue: text) else {
          let names = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
          throw PluginError.config("\(name) must be \(names), not \"\(text)\"")
        }
        return choice
      }

      let target = try Self.target(
        group: value("group", String.self), members: value("members", [String].self),
        lights: value("lights", [String].self))

      let saturation = try number("saturation", 0...100, unit: " %") ?? 75
      let brightness = try number("brightness", 1...100, unit: " %") ?? 100
      let step = try number("step_degrees", 0.1...180, unit: "°")
      let palette = try value("palette", [PaletteEntry].self)
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
          stepDegrees: step ?? 15, startHue: try number("start_hue", 0...360, unit: "°") ?? 0,
          saturation: saturation, brightness: brightness)
      }

      let period = try number("period_s", 0.01...86400, unit: " s")
      let bpm = try number("bpm", 0.1...6000)
      if period != nil, bpm != nil {
        throw PluginError.config(
          "period_s and bpm exclude each other: give the time of one cycle or the steps per minute")
      }
      let positions = Double(source.positionsPerCycle)
      let interval = bpm.map { 60 / $0 } ?? period.map { $0 / positions } ?? 1

      let spread = try number("spread_degrees", -360...360, unit: "°") ?? 0
      if case .group = target, spread != 0 {
        throw PluginError.config(
          "spread_degrees needs per-light targets (lights = [...]): a group gets one color per step")
      }
      let rates = DriverRates(
        kind: { if case .group = target { .group } else { .lights } }(),
        groupPerSecond: try number("group_rate", 0.01...100, unit: " commands/s") ?? 1,
        lightPerSecond: try number("light_rate", 0.01...1000, unit: " commands/s") ?? 10)
      let transition = try number("transition_ms", 0...3_600_000, unit: " ms")
      let plan = EffectPlan(
        source: source, direction: try choice("direction", EffectPlan.Direction.self) ?? .forward,
        order: try choice("order", EffectPlan.Order.self) ?? .sequential, spread: spread,
        targetCount: { if case .lights(let names) = target { names.count } else { 1 } }(),
        requestedInterval: interval, transitionMs: transition.map { UInt32($0.rounded()) }, rates: rates)
      let duration = try number("duration_s", 0...604_800, unit: " s")
      config = PartyConfig(
        target: target, plan: plan, duration: duration == 0 ? nil : duration,
        restoreTransitionMs: UInt32((try number("restore_transition_ms", 0...60000, unit: " ms") ?? 400).rounded()))
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
}
