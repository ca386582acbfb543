/// A HAP service: the characteristics it always has and those an `add` may enable.
public struct ServiceSpec: Sendable, Hashable {
  public var name: String
  public var required: [CharacteristicSpec]
  public var optional: [CharacteristicSpec]

  public func characteristic(named name: String) -> CharacteristicSpec? {
    (required + optional).first { $0.name == name }
  }

  /// Finds an optional characteristic by its HAP name or its snake name.
  public func optionalCharacteristic(matching name: String) -> CharacteristicSpec? {
    optional.first { $0.name == name || $0.snakeName == name }
  }
}

/// The HAP services this project supports, with HAP-NodeJS's formats and ranges.
public enum ServiceCatalog {
  public static let on = CharacteristicSpec("On", .bool, homeKitWritable: true)
  public static let brightness = CharacteristicSpec("Brightness", .int, min: 0, max: 100, homeKitWritable: true)
  public static let hue = CharacteristicSpec("Hue", .float, min: 0, max: 360, homeKitWritable: true)
  public static let saturation = CharacteristicSpec("Saturation", .float, min: 0, max: 100, homeKitWritable: true)
  public static let colorTemperature = CharacteristicSpec(
    "ColorTemperature", .uint32, min: 140, max: 500, homeKitWritable: true)
  public static let outletInUse = CharacteristicSpec("OutletInUse", .bool)
  public static let programmableSwitchEvent = CharacteristicSpec(
    "ProgrammableSwitchEvent", .uint8, min: 0, max: 2, isEvent: true)
  public static let currentTemperature = CharacteristicSpec("CurrentTemperature", .float, min: -270, max: 100)
  public static let contactSensorState = CharacteristicSpec("ContactSensorState", .uint8, min: 0, max: 1)
  public static let motionDetected = CharacteristicSpec("MotionDetected", .bool)
  public static let occupancyDetected = CharacteristicSpec("OccupancyDetected", .uint8, min: 0, max: 1)
  public static let statusActive = CharacteristicSpec("StatusActive", .bool)
  public static let statusLowBattery = CharacteristicSpec("StatusLowBattery", .uint8, min: 0, max: 1)

  static let sensorStatus = [statusActive, statusLowBattery]

  public static let services: [ServiceSpec] = [
    ServiceSpec(name: "Switch", required: [on], optional: []),
    ServiceSpec(name: "Outlet", required: [on, outletInUse], optional: []),
    ServiceSpec(
      name: "Lightbulb", required: [on], optional: [brightness, hue, saturation, colorTemperature]),
    ServiceSpec(name: "StatelessProgrammableSwitch", required: [programmableSwitchEvent], optional: []),
    ServiceSpec(name: "TemperatureSensor", required: [currentTemperature], optional: sensorStatus),
    ServiceSpec(name: "ContactSensor", required: [contactSensorState], optional: sensorStatus),
    ServiceSpec(name: "MotionSensor", required: [motionDetected], optional: sensorStatus),
    ServiceSpec(name: "OccupancySensor", required: [occupancyDetected], optional: sensorStatus),
  ]

  public static func service(named name: String) -> ServiceSpec? {
    services.first { $0.name == name }
  }

  public static var serviceNames: [String] { services.map(\.name) }

  /// ProgrammableSwitchEvent values.
  public enum SwitchEvent: Double, Sendable {
    case singlePress = 0, doublePress = 1, longPress = 2
  }
}
