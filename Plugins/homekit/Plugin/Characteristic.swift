import PatchbayValues

/// One HAP characteristic this bridge serves: its Apple type, format, permissions and range
/// (the reference's table), and the hub port name it takes (snake case, as the
/// homebridge-websocket plugin names the same characteristic, so moving over is one line).
struct Characteristic: Sendable, Hashable {
  enum Format: String, Sendable {
    case bool, uint8, uint32, int, float, string
  }

  /// The short form of `0000XXXX-0000-1000-8000-0026BB765291`.
  let type: String
  /// HomeKit's name (Apple's spelling), for logs.
  let name: String
  let format: Format
  let minimum: Double?
  let maximum: Double?
  let step: Double?
  let unit: String?
  /// A controller may write it.
  let writable: Bool
  /// Events may be subscribed to.
  let notifies: Bool
  /// Writes only through /prepare (locks, garage doors: security class).
  let timedWrite: Bool
  /// Reads give null (ProgrammableSwitchEvent: its value exists only as an event).
  let readsNull: Bool

  init(
    _ type: String, _ name: String, _ format: Format, min: Double? = nil, max: Double? = nil, step: Double? = nil,
    unit: String? = nil, writable: Bool = false, notifies: Bool = true, timedWrite: Bool = false,
    readsNull: Bool = false
  ) {
    self.type = type
    self.name = name
    self.format = format
    minimum = min
    maximum = max
    self.step = step
    self.unit = unit
    self.writable = writable
    self.notifies = notifies
    self.timedWrite = timedWrite
    self.readsNull = readsNull
  }

  /// `pr`, `pw`, `ev`, `tw` as HAP lists them.
  var permissions: [String] {
    var perms: [String] = []
    if type != Self.identify.type { perms.append("pr") }
    if writable { perms.append("pw") }
    if notifies { perms.append("ev") }
    if timedWrite { perms.append("tw") }
    return perms
  }

  /// The port name after the accessory's prefix: `CurrentTemperature` -> `current_temperature`.
  var portName: String {
    var snake = ""
    for character in name {
      if character.isUppercase, !snake.isEmpty { snake.append("_") }
      snake.append(Character(character.lowercased()))
    }
    return snake
  }

  /// The hub type of its port.
  var valueType: ValueType {
    switch format {
    case .bool: .bool
    case .float: .number
    case .string: .text
    case .uint8, .uint32, .int: .integer
    }
  }

  /// The value before the hub has said anything.
  var initialValue: JSONValue {
    if readsNull { return .null }
    switch format {
    case .bool: return .bool(false)
    case .string: return .string("")
    case .float: return .number(max(minimum ?? 0, 0))
    case .uint8, .uint32, .int: return .integer(Int64(max(minimum ?? 0, 0)))
    }
  }

  // MARK: Accessory Information (3E) and Protocol Information (A2)
  static let identify = Characteristic("14", "Identify", .bool, writable: true, notifies: false)
  static let manufacturer = Characteristic("20", "Manufacturer", .string, notifies: false)
  static let model = Characteristic("21", "Model", .string, notifies: false)
  static let name = Characteristic("23", "Name", .string, notifies: false)
  static let serialNumber = Characteristic("30", "SerialNumber", .string, notifies: false)
  static let firmwareRevision = Characteristic("52", "FirmwareRevision", .string, notifies: false)
  static let version = Characteristic("37", "Version", .string, notifies: false)

  // MARK: Services' characteristics
  static let on = Characteristic("25", "On", .bool, writable: true)
  static let outletInUse = Characteristic("26", "OutletInUse", .bool)
  static let brightness = Characteristic(
    "8", "Brightness", .int, min: 0, max: 100, step: 1, unit: "percentage", writable: true)
  static let hue = Characteristic("13", "Hue", .float, min: 0, max: 360, step: 1, unit: "arcdegrees", writable: true)
  static let saturation = Characteristic(
    "2F", "Saturation", .float, min: 0, max: 100, step: 1, unit: "percentage", writable: true)
  static let colorTemperature = Characteristic(
    "CE", "ColorTemperature", .uint32, min: 140, max: 500, step: 1, writable: true)
  static let programmableSwitchEvent = Characteristic(
    "73", "ProgrammableSwitchEvent", .uint8, min: 0, max: 2, step: 1, readsNull: true)
  static let contactSensorState = Characteristic("6A", "ContactSensorState", .uint8, min: 0, max: 1, step: 1)
  static let motionDetected = Characteristic("22", "MotionDetected", .bool)
  static let occupancyDetected = Characteristic("71", "OccupancyDetected", .uint8, min: 0, max: 1, step: 1)
  static let currentTemperature = Characteristic(
    "11", "CurrentTemperature", .float, min: -270, max: 100, step: 0.1, unit: "celsius")
  static let currentRelativeHumidity = Characteristic(
    "10", "CurrentRelativeHumidity", .float, min: 0, max: 100, step: 1, unit: "percentage")
  static let currentAmbientLightLevel = Characteristic(
    "6B", "CurrentAmbientLightLevel", .float, min: 0.0001, max: 100000, unit: "lux")
  static let batteryLevel = Characteristic("68", "BatteryLevel", .uint8, min: 0, max: 100, step: 1, unit: "percentage")
  static let chargingState = Characteristic("8F", "ChargingState", .uint8, min: 0, max: 2, step: 1)
  static let statusLowBattery = Characteristic("79", "StatusLowBattery", .uint8, min: 0, max: 1, step: 1)
  static let currentDoorState = Characteristic("E", "CurrentDoorState", .uint8, min: 0, max: 4, step: 1)
  static let targetDoorState = Characteristic(
    "32", "TargetDoorState", .uint8, min: 0, max: 1, step: 1, writable: true, timedWrite: true)
  static let obstructionDetected = Characteristic("24", "ObstructionDetected", .bool)
  static let lockCurrentState = Characteristic("1D", "LockCurrentState", .uint8, min: 0, max: 3, step: 1)
  static let lockTargetState = Characteristic(
    "1E", "LockTargetState", .uint8, min: 0, max: 1, step: 1, writable: true, timedWrite: true)
}
