/// Home Assistant's documented device classes and state classes (developers.home-assistant.io,
/// entity/sensor, entity/binary-sensor, entity/switch; as of 2025.1). HA refuses an entity
/// whose device class it does not know, so `patchbay check` refuses it first.
public enum HomeAssistantVocabulary {
  public static let sensorDeviceClasses = [
    "apparent_power", "aqi", "area", "atmospheric_pressure", "battery", "blood_glucose_concentration",
    "carbon_dioxide", "carbon_monoxide", "conductivity", "current", "data_rate", "data_size", "date", "distance",
    "duration", "energy", "energy_storage", "enum", "frequency", "gas", "humidity", "illuminance", "irradiance",
    "moisture", "monetary", "nitrogen_dioxide", "nitrogen_monoxide", "nitrous_oxide", "ozone", "ph", "pm1", "pm10",
    "pm25", "power", "power_factor", "precipitation", "precipitation_intensity", "pressure", "reactive_power",
    "signal_strength", "sound_pressure", "speed", "sulphur_dioxide", "temperature", "timestamp",
    "volatile_organic_compounds", "volatile_organic_compounds_parts", "voltage", "volume", "volume_flow_rate",
    "volume_storage", "water", "weight", "wind_direction", "wind_speed",
  ]
  public static let binarySensorDeviceClasses = [
    "battery", "battery_charging", "carbon_monoxide", "cold", "connectivity", "door", "garage_door", "gas", "heat",
    "light", "lock", "moisture", "motion", "moving", "occupancy", "opening", "plug", "power", "presence", "problem",
    "running", "safety", "smoke", "sound", "tamper", "update", "vibration", "window",
  ]
  public static let switchDeviceClasses = ["outlet", "switch"]
  /// `measurement_angle` is newer (2025.x) and left out: older releases refuse it.
  public static let stateClasses = ["measurement", "total", "total_increasing"]

  /// Units HA accepts for a few device classes whose lists are short and stable since 2023;
  /// other device classes' units are not checked here.
  public static let units: [String: [String]] = [
    "temperature": ["°C", "°F", "K"], "humidity": ["%"], "battery": ["%"], "moisture": ["%"],
    "illuminance": ["lx"], "voltage": ["V", "mV", "kV"], "current": ["A", "mA"],
    "power": ["W", "kW"], "energy": ["Wh", "kWh", "MWh", "MJ", "GJ"],
  ]

  /// The device classes HA knows for `component` (nil: the component takes none).
  public static func deviceClasses(for component: HomeAssistantEntity.Component) -> [String]? {
    switch component {
    case .sensor: sensorDeviceClasses
    case .binarySensor: binarySensorDeviceClasses
    case .switch: switchDeviceClasses
    case .light, .button: nil
    }
  }
}
