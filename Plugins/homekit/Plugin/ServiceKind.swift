/// The HAP services an accessory of this bridge may be (config key `service`), with their
/// characteristics in the reference table's order: required first, then the optional ones served.
enum ServiceKind: String, CaseIterable, Sendable {
  case `switch`, outlet, lightbulb
  case programmableSwitch = "programmable_switch"
  case contactSensor = "contact_sensor"
  case motionSensor = "motion_sensor"
  case occupancySensor = "occupancy_sensor"
  case temperatureSensor = "temperature_sensor"
  case humiditySensor = "humidity_sensor"
  case lightSensor = "light_sensor"
  case battery
  case garageDoor = "garage_door"
  case lock

  /// Also accepted in config: HomeKit's service names as homebridge-websocket takes them
  /// ("Switch", "Lightbulb", "StatelessProgrammableSwitch"), so moving over is one line.
  init?(configName: String) {
    if let kind = ServiceKind(rawValue: configName) {
      self = kind
    } else if let kind = Self.allCases.first(where: { $0.homeKitName == configName }) {
      self = kind
    } else {
      return nil
    }
  }

  /// The short form of the service's Apple type.
  var type: String {
    switch self {
    case .switch: "49"
    case .outlet: "47"
    case .lightbulb: "43"
    case .programmableSwitch: "89"
    case .contactSensor: "80"
    case .motionSensor: "85"
    case .occupancySensor: "86"
    case .temperatureSensor: "8A"
    case .humiditySensor: "82"
    case .lightSensor: "84"
    case .battery: "96"
    case .garageDoor: "41"
    case .lock: "45"
    }
  }

  var homeKitName: String {
    switch self {
    case .switch: "Switch"
    case .outlet: "Outlet"
    case .lightbulb: "Lightbulb"
    case .programmableSwitch: "StatelessProgrammableSwitch"
    case .contactSensor: "ContactSensor"
    case .motionSensor: "MotionSensor"
    case .occupancySensor: "OccupancySensor"
    case .temperatureSensor: "TemperatureSensor"
    case .humiditySensor: "HumiditySensor"
    case .lightSensor: "LightSensor"
    case .battery: "Battery"
    case .garageDoor: "GarageDoorOpener"
    case .lock: "LockMechanism"
    }
  }

  /// The characteristics served, in iid order (Name last: it is optional everywhere).
  var characteristics: [Characteristic] {
    switch self {
    case .switch: [.on]
    case .outlet: [.on, .outletInUse]
    case .lightbulb: [.on] + Self.lightOptions
    case .programmableSwitch: [.programmableSwitchEvent]
    case .contactSensor: [.contactSensorState]
    case .motionSensor: [.motionDetected]
    case .occupancySensor: [.occupancyDetected]
    case .temperatureSensor: [.currentTemperature]
    case .humiditySensor: [.currentRelativeHumidity]
    case .lightSensor: [.currentAmbientLightLevel]
    case .battery: [.batteryLevel, .chargingState, .statusLowBattery]
    case .garageDoor: [.currentDoorState, .targetDoorState, .obstructionDetected]
    case .lock: [.lockCurrentState, .lockTargetState]
    }
  }

  /// A Lightbulb's optional characteristics (config key `characteristics` picks among them).
  static let lightOptions: [Characteristic] = [.brightness, .hue, .saturation, .colorTemperature]
}
