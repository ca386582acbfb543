import PatchbayPluginKit

/// The schedule instance's config: where (for sun events), which zone, and the triggers.
/// Every mistake is refused naming its key.
///
/// ```toml
/// [instances.clock]
/// plugin = "schedule"
/// latitude = 52.52
/// longitude = 13.40
/// time_zone = "Europe/Berlin"        # optional: the system's zone otherwise
/// [[instances.clock.triggers]]
/// name = "weekday_morning"           # the output port (a trigger event)
/// cron = "30 6 * * mon-fri"
/// [[instances.clock.triggers]]
/// name = "lights_on"
/// sun = "sunset"
/// offset = "-30 min"
/// ```
public struct ScheduleConfig: Sendable {
  public var latitude: Double?
  public var longitude: Double?
  public var zone: ZoneRules
  public var triggers: [TriggerSpec]

  /// Reads the config (JSON, as the hub hands it over).
  public init(json: String) throws {
    self = try PluginContext.decodeConfig(Keys.self, json: json).config
  }

  public init(latitude: Double?, longitude: Double?, zone: ZoneRules, triggers: [TriggerSpec]) {
    self.latitude = latitude
    self.longitude = longitude
    self.zone = zone
    self.triggers = triggers
  }
}
