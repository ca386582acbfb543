import FlicBLEBlueZ
import FlicBLEProtocol
import Foundation
import PatchbayTestSupport
import Testing

/// BlueZ's object tree as the transport keeps it, and the pairing file, without a bus.
@Suite struct BlueZObjectsTests {
  static let adapter = "/org/bluez/hci0"
  static let device = adapter + "/dev_80_E4_DA_71_B6_8E"

  static func managed() -> DBusValue {
    .dictionary([
      adapter: .dictionary([BlueZNames.adapter: .dictionary(["Powered": .variant(.bool(true))])]),
      device: .dictionary([
        BlueZNames.device: .dictionary([
          "Address": .variant(.string("80:E4:DA:71:B6:8E")), "Connected": .variant(.bool(false)),
          "UUIDs": .variant(.array([.string(BlueZNames.flicService)])),
        ])
      ]),
    ])
  }

  @Test func findsDevicesByAddressAndAdvertisedService() {
    let objects = BlueZObjects(managed: Self.managed())
    #expect(objects.adapters == [Self.adapter])
    #expect(objects.isPowered(Self.adapter))
    #expect(objects.device(address: "80:e4:da:71:b6:8e") == Self.device)
    #expect(objects.device(address: "80:e4:da:71:b6:8f") == nil)
    #expect(objects.devices(advertising: BlueZNames.flicService) == [Self.device])
    #expect(BlueZNames.devicePath(adapter: Self.adapter, address: "80:e4:da:71:b6:8e") == Self.device)
  }

  @Test func followsInterfacesAddedRemovedAndPropertiesChanged() {
    var objects = BlueZObjects(managed: Self.managed())
    let characteristic = Self.device + "/service000c/char000f"
    objects.add(
      path: characteristic,
      interfaces: .dictionary([
        BlueZNames.characteristic: .dictionary(["UUID": .variant(.string(BlueZNames.flicNotify.uppercased()))])
      ]))
    #expect(objects.characteristic(below: Self.device, uuid: BlueZNames.flicNotify) == characteristic)
    #expect(objects.characteristic(below: Self.device, uuid: BlueZNames.flicWrite) == nil)

    let known = objects.change(
      path: Self.device, interface: BlueZNames.device, changed: ["Connected": .bool(true)], invalidated: [])
    #expect(known)
    #expect(objects.property(Self.device, BlueZNames.device, "Connected")?.bool == true)
    // A change of an object nobody announced is not invented.
    let unknown = objects.change(path: "/org/bluez/hci1", interface: BlueZNames.adapter, changed: [:], invalidated: [])
    #expect(!unknown)

    objects.remove(path: characteristic, interfaces: [BlueZNames.characteristic])
    #expect(objects.objects[characteristic] == nil)
    objects.change(
      path: Self.adapter, interface: BlueZNames.adapter, changed: ["Powered": .bool(false)], invalidated: [])
    #expect(!objects.isPowered(Self.adapter))
  }

  @Test func blueZErrorsReadAsWhatToDo() {
    let notReady = BlueZErrorText.explain(.init(name: "org.bluez.Error.NotReady", message: "Resource Not Ready"))
    #expect(notReady.contains("not ready (powered off?)") && notReady.contains("Resource Not Ready"))
    let gone = BlueZErrorText.explain(.init(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: ""))
    #expect(gone == "bluetoothd is not running (nobody owns org.bluez on the system bus)")
    #expect(BlueZErrorText.explain(.init(name: "com.example.Odd", message: "x")) == "com.example.Odd: x")
  }

  @Test func thePairingFileRoundTripsWithMode0600AndRefusesADamagedOne() throws {
    let directory = try TemporaryDirectory("flic-ble-pairing")
    let file = PairingFile(stateDirectory: directory.path, button: "bedside")
    #expect(throws: PairingFile.LoadError.missing) { try file.load() }
    let button = StoredButton(
      pairing: Pairing(identifier: 4_000_000_001, key: Array(0..<16)), address: [0x0B, 0x0A, 9, 8, 7, 6],
      buttonUUID: Array(0x10..<0x20), serialNumber: "BG00-C00001", name: "Bedside", firmwareVersion: 10,
      cursor: EventCursor(eventCount: 77, bootID: 12345))
    try file.save(button)
    #expect(try file.load() == button)
    let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    #expect(BluetoothAddressText(littleEndian: button.address).description == "06:07:08:09:0A:0B")

    try "address=06:07:08:09:0A:0B\npairing_id=1\n".write(toFile: file.path, atomically: true, encoding: .utf8)
    #expect {
      try file.load()
    } throws: { error in
      "\(error)".contains("is damaged") && "\(error)".contains("pair the button again")
    }
  }
}
