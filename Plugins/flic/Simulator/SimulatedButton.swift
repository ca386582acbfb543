import FlicProtocol

/// A Flic button as the simulated daemon sees it: paired or not, in radio range or not, with
/// its identity (GetButtonInfo) and battery.
struct SimulatedButton {
  var address: BluetoothAddress
  var name: String
  /// Paired with this daemon (listed by GetInfo).
  var verified: Bool
  /// In radio range: channels to it are Ready.
  var inRange = true
  /// In private mode, a button accepts no new bonding; holding it 7 s makes it public.
  var isPrivate = false
  var batteryPercentage: Int8 = 100
  var color = "white"
  var serialNumber: String
  var uuid: [UInt8]
  var flicVersion: UInt8 = 2
  var firmwareVersion: UInt32 = 10
  /// Presses stored on the button while it was out of range, delivered on reconnect.
  var storedPresses: [StoredPress] = []

  init(address: BluetoothAddress, name: String, verified: Bool) {
    self.address = address
    self.name = name
    self.verified = verified
    // Stable, address-derived identity so `flic list` shows the same data every run.
    let tail = address.bytes.suffix(3).map { byte in
      byte < 0x10 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
    }
    serialNumber = "SIM-" + tail.joined().uppercased()
    uuid = Array(repeating: 0x5a, count: 10) + address.bytes
  }

  /// GetButtonInfo's answer; an unverified button has a zero uuid and empty strings, as in flicd.
  var info: ButtonInfo {
    verified
      ? ButtonInfo(
        address: address, uuid: uuid, color: color, serialNumber: serialNumber, flicVersion: flicVersion,
        firmwareVersion: firmwareVersion)
      : ButtonInfo(address: address, uuid: [], color: "", serialNumber: "", flicVersion: 0, firmwareVersion: 0)
  }
}

/// A press made while out of range; its age grows until it is delivered.
struct StoredPress {
  var gesture: PressGesture
  var ageSeconds: UInt32
  var storedAt: ContinuousClock.Instant
}
