import PatchbayPluginKit

extension ScheduleConfig {
  /// One `[[triggers]]` table as written, checked key by key; `spec` builds the trigger once
  /// the instance's place is known.
  struct TriggerKeys: Decodable {
    enum Keys: String, CodingKey, CaseIterable {
      case name, cron, sun, at, offset
      case catchUp = "catch_up"
      case maxLate = "max_late"
    }

    var name: String
    var cron: String?
    var sun: String?
    var at: String?
    var offset: String?
    var catchUp: String?
    var maxLate: String?

    init(from decoder: Decoder) throws {
      try decoder.refuseUnknownKeys(Keys.self)
      let keys = try decoder.container(keyedBy: Keys.self)
      guard let name = try keys.decodeIfPresent(String.self, forKey: .name) else {
        throw PluginError.config(
          "missing required key '\(decoder.keyPrefix)name' (the trigger's output port, like \"morning\")")
      }
      self.name = name
      cron = try keys.decodeIfPresent(String.self, forKey: .cron)
      sun = try keys.decodeIfPresent(String.self, forKey: .sun)
      at = try keys.decodeIfPresent(String.self, forKey: .at)
      offset = try keys.decodeIfPresent(String.self, forKey: .offset)
      catchUp = try keys.decodeIfPresent(String.self, forKey: .catchUp)
      maxLate = try keys.decodeIfPresent(String.self, forKey: .maxLate)
    }

    func spec(index: Int, place: (latitude: Double, longitude: Double)?) throws -> TriggerSpec {
      let key = "triggers.\(index)"
      try Self.checkPortName(name, key: "\(key).name")
      let rule: TriggerRule
      switch (cron, sun, at) {
      case (let cron?, nil, nil):
        do {
          rule = .cron(try CronExpression(cron))
        } catch {
          throw PluginError.config("\(key).cron: \(error)")
        }
      case (nil, let sun?, nil):
        guard let event = SunEvent(rawValue: sun) else {
          throw PluginError.config(
            "\(key).sun must be \(SunEvent.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), not \"\(sun)\""
          )
        }
        guard let place else {
          throw PluginError.config(
            "\(key).sun needs the instance's latitude and longitude (like latitude = 52.52, longitude = 13.40)")
        }
        let seconds = try offset.map { text in
          do {
            return try DurationText.parse(text, allowNegative: true)
          } catch {
            throw PluginError.config("\(key).offset: \(error)")
          }
        }
        guard abs(seconds ?? 0) <= 12 * 3600 else {
          throw PluginError.config("\(key).offset must be within 12 h of the sun event, not \(offset ?? "")")
        }
        rule = .sun(
          SunSchedule(
            event: event, offsetSeconds: seconds ?? 0, latitude: place.latitude, longitude: place.longitude))
      case (nil, nil, let at?):
        do {
          rule = .at(try OneShotTime(at))
        } catch {
          throw PluginError.config("\(key).at: \(error)")
        }
      case (nil, nil, nil):
        throw PluginError.config(
          "\(key) ('\(name)') needs one of cron, sun or at: like cron = \"30 6 * * mon-fri\", sun = \"sunset\" "
            + "or at = \"2026-12-24T18:00:00+01:00\"")
      default:
        throw PluginError.config("\(key) ('\(name)'): cron, sun and at exclude each other; give one")
      }
      if offset != nil {
        guard case .sun = rule else {
          throw PluginError.config("\(key).offset belongs with sun; a cron or at trigger says its time directly")
        }
      }
      let policy: CatchUpPolicy
      if let catchUp {
        guard let chosen = CatchUpPolicy(rawValue: catchUp) else {
          throw PluginError.config("\(key).catch_up must be \"skip\" or \"once\", not \"\(catchUp)\"")
        }
        policy = chosen
      } else {
        policy = .skip
      }
      var late = TriggerSpec.defaultMaxLate
      if let maxLate {
        do {
          late = try DurationText.parse(maxLate, allowNegative: false)
        } catch {
          throw PluginError.config("\(key).max_late: \(error)")
        }
        guard late <= TriggerSpec.longestMaxLate else {
          throw PluginError.config("\(key).max_late must be at most 1 d, not \(maxLate)")
        }
      }
      return TriggerSpec(name: name, rule: rule, catchUp: policy, maxLate: late)
    }

    /// The name becomes a port name: lowercase letters, digits, `_` and `.`.
    static func checkPortName(_ name: String, key: String) throws {
      guard !name.isEmpty, name.utf8.count <= 64,
        name.unicodeScalars.allSatisfy({
          ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "."
        })
      else {
        throw PluginError.config(
          "\(key) '\(name)' must be lowercase letters, digits, _ and . (it names the output port)")
      }
    }
  }
}
