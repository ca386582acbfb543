import PatchbayPluginKit

extension ScheduleConfig {
  /// Reads the instance's keys, checks each value and the combinations, and builds the config.
  /// Errors are `PluginError.config` naming the key.
  struct Keys: Decodable {
    let config: ScheduleConfig

    enum Keys: String, CodingKey, CaseIterable {
      case latitude, longitude
      case timeZone = "time_zone"
      case triggers
    }

    init(from decoder: Decoder) throws {
      try decoder.refuseUnknownKeys(Keys.self)
      let keys = try decoder.container(keyedBy: Keys.self)
      let latitude = try keys.decodeIfPresent(Double.self, forKey: .latitude)
      let longitude = try keys.decodeIfPresent(Double.self, forKey: .longitude)
      if let latitude, !(-90...90).contains(latitude) {
        throw PluginError.config("latitude must be between -90 and 90 degrees (north positive), not \(latitude)")
      }
      if let longitude, !(-180...180).contains(longitude) {
        throw PluginError.config("longitude must be between -180 and 180 degrees (east positive), not \(longitude)")
      }
      if (latitude == nil) != (longitude == nil) {
        throw PluginError.config(
          "latitude and longitude go together: give both (like latitude = 52.52, longitude = 13.40) or neither")
      }
      let zone: ZoneRules
      if let name = try keys.decodeIfPresent(String.self, forKey: .timeZone) {
        guard let named = ZoneRules(identifier: name) else {
          throw PluginError.config(
            "time_zone '\(name)' is not a zone of the tz database; use a name like \"Europe/Berlin\" or \"America/New_York\" (see /usr/share/zoneinfo)"
          )
        }
        zone = named
      } else {
        zone = .system
      }
      let place = latitude.flatMap { lat in longitude.map { (lat, $0) } }
      let raw = try keys.decodeIfPresent([TriggerKeys].self, forKey: .triggers) ?? []
      guard !raw.isEmpty else {
        throw PluginError.config(
          "missing required key 'triggers': list at least one, like [[instances.NAME.triggers]] "
            + "with name = \"morning\" and cron = \"30 6 * * mon-fri\"")
      }
      var names: Set<String> = []
      var triggers: [TriggerSpec] = []
      for (index, keys) in raw.enumerated() {
        let spec = try keys.spec(index: index, place: place)
        guard names.insert(spec.name).inserted else {
          throw PluginError.config("triggers.\(index).name: '\(spec.name)' is used by an earlier trigger")
        }
        triggers.append(spec)
      }
      config = ScheduleConfig(latitude: latitude, longitude: longitude, zone: zone, triggers: triggers)
    }
  }
}
