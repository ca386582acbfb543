// The structured payloads of flicd events that carry more than a couple of fields.

/// One press report (ops 4 to 7 share this layout).
public struct ButtonPress: Sendable, Hashable {
  public var connectionID: UInt32
  public var clickType: ClickType
  /// The press was stored on the button while it was out of reach and delivered late.
  public var wasQueued: Bool
  /// For a queued press, its age in seconds.
  public var timeDiff: UInt32

  public init(connectionID: UInt32, clickType: ClickType, wasQueued: Bool = false, timeDiff: UInt32 = 0) {
    self.connectionID = connectionID
    self.clickType = clickType
    self.wasQueued = wasQueued
    self.timeDiff = timeDiff
  }
}

/// A button seen by a raw scanner (op 0).
public struct Advertisement: Sendable, Hashable {
  public var scanID: UInt32
  public var address: BluetoothAddress
  public var name: String
  public var rssi: Int8
  public var isPrivate: Bool
  public var alreadyVerified: Bool
  public var alreadyConnectedToThisDevice: Bool
  public var alreadyConnectedToOtherDevice: Bool

  public init(
    scanID: UInt32, address: BluetoothAddress, name: String, rssi: Int8, isPrivate: Bool, alreadyVerified: Bool,
    alreadyConnectedToThisDevice: Bool, alreadyConnectedToOtherDevice: Bool
  ) {
    self.scanID = scanID
    self.address = address
    self.name = name
    self.rssi = rssi
    self.isPrivate = isPrivate
    self.alreadyVerified = alreadyVerified
    self.alreadyConnectedToThisDevice = alreadyConnectedToThisDevice
    self.alreadyConnectedToOtherDevice = alreadyConnectedToOtherDevice
  }
}

/// The daemon's state and its verified (paired) buttons (op 9).
public struct DaemonInfo: Sendable, Hashable {
  public var controllerState: BluetoothControllerState
  public var address: BluetoothAddress
  public var addressType: BluetoothAddressType
  public var maxPendingConnections: UInt8
  /// -1 when unknown.
  public var maxConcurrentlyConnectedButtons: Int16
  public var currentPendingConnections: UInt8
  public var currentlyNoSpace: Bool
  public var verifiedButtons: [BluetoothAddress]

  public init(
    controllerState: BluetoothControllerState, address: BluetoothAddress, addressType: BluetoothAddressType,
    maxPendingConnections: UInt8, maxConcurrentlyConnectedButtons: Int16, currentPendingConnections: UInt8,
    currentlyNoSpace: Bool, verifiedButtons: [BluetoothAddress]
  ) {
    self.controllerState = controllerState
    self.address = address
    self.addressType = addressType
    self.maxPendingConnections = maxPendingConnections
    self.maxConcurrentlyConnectedButtons = maxConcurrentlyConnectedButtons
    self.currentPendingConnections = currentPendingConnections
    self.currentlyNoSpace = currentlyNoSpace
    self.verifiedButtons = verifiedButtons
  }
}

/// What flicd knows about one button (op 14). An all-zero uuid means the button is not verified.
public struct ButtonInfo: Sendable, Hashable {
  public var address: BluetoothAddress
  public var uuid: [UInt8]
  public var color: String
  public var serialNumber: String
  public var flicVersion: UInt8
  public var firmwareVersion: UInt32

  public init(
    address: BluetoothAddress, uuid: [UInt8], color: String, serialNumber: String, flicVersion: UInt8,
    firmwareVersion: UInt32
  ) {
    self.address = address
    self.uuid = uuid
    self.color = color
    self.serialNumber = serialNumber
    self.flicVersion = flicVersion
    self.firmwareVersion = firmwareVersion
  }

  /// The uuid as 32 lowercase hex digits.
  public var uuidText: String {
    uuid.map { byte in byte < 0x10 ? "0" + String(byte, radix: 16) : String(byte, radix: 16) }.joined()
  }
}
