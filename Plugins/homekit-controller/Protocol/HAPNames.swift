/// Port names for HAP services and characteristics the plugin has no kind of its own for
/// (short upper-case types, from Apple's HomeKit Accessory Protocol specification). A type not
/// listed is named from its `description`, else as `c_TYPE`.
package enum HAPNames {
  /// Name: the accessory's (and a service's) name, never a port of its own.
  package static let name = "23"

  /// Accessory Information, Protocol Information, Pairing: nothing to route.
  package static let ignoredServices: Set<String> = ["3E", "A2", "55"]

  package static let services: [String: String] = [
    "8C": "window_covering", "45": "lock", "4A": "thermostat", "40": "fan", "B7": "fan", "41": "garage_door",
    "7E": "security_system", "8D": "air_quality", "7F": "carbon_monoxide", "97": "carbon_dioxide",
    "84": "light_sensor", "86": "occupancy", "87": "smoke", "83": "leak", "8B": "window", "81": "door",
    "BB": "air_purifier", "BC": "heater_cooler", "BD": "humidifier", "D0": "valve", "CF": "irrigation",
    "121": "doorbell",
  ]

  package static let characteristics: [String: String] = [
    "6D": "current_position", "7C": "target_position", "72": "position_state", "24": "obstruction_detected",
    "1D": "lock_current_state", "1E": "lock_target_state", "11": "current_temperature",
    "35": "target_temperature", "F": "current_heating_cooling_state", "33": "target_heating_cooling_state",
    "36": "temperature_display_units", "10": "current_relative_humidity", "95": "air_quality",
    "8F": "charging_state", "79": "status_low_battery", "68": "battery_level", "77": "status_fault",
    "7A": "status_tampered", "75": "status_active", "B0": "active", "29": "rotation_speed",
    "28": "rotation_direction", "E": "current_door_state", "32": "target_door_state", "71": "occupancy_detected",
    "76": "smoke_detected", "70": "leak_detected", "69": "carbon_monoxide_detected",
    "92": "carbon_dioxide_detected", "6B": "current_ambient_light_level", "66": "security_system_current_state",
    "67": "security_system_target_state", "C6": "pm2_5_density", "C7": "pm10_density", "C8": "voc_density",
    "25": "on", "8": "brightness", "6A": "contact_sensor_state", "22": "motion_detected",
  ]
}
