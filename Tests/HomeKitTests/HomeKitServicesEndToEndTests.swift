import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

/// The garage door, the lock, the contact, motion and temperature sensors and the battery
/// through the real plugin and aiohomekit: each listed as the reference's table says, read,
/// evented for hub-side changes, and written where HomeKit may write (the garage door and the
/// lock only in a timed write), with the write arriving on the hub's side.
@Suite(.serialized) struct HomeKitServicesEndToEndTests {
  static let accessories = HubTOML()
    .accessory("Garage", service: "garage_door")
    .accessory("Front door", service: "lock")
    .accessory("Back door", service: "contact_sensor")
    .accessory("Hall", service: "motion_sensor")
    .accessory("Outside", service: "temperature_sensor")
    .accessory("Sensor battery", service: "battery")

  static let probe: [HubTOML.Port] = [.state("garage_target", "integer"), .state("lock_target", "integer")]

  static let routes = HubTOML().routes([
    "homekit.garage.target_door_state.set": "probe.garage_target",
    "homekit.front_door.lock_target_state.set": "probe.lock_target",
  ])

  /// (accessory, service type, [(characteristic type, format, perms)]) per the reference.
  static let table: [(String, String, [(String, String, [String])])] = [
    (
      "Garage", "41",
      [("E", "uint8", ["pr", "ev"]), ("32", "uint8", ["pr", "pw", "ev", "tw"]), ("24", "bool", ["pr", "ev"])]
    ),
    ("Front door", "45", [("1D", "uint8", ["pr", "ev"]), ("1E", "uint8", ["pr", "pw", "ev", "tw"])]),
    ("Back door", "80", [("6A", "uint8", ["pr", "ev"])]),
    ("Hall", "85", [("22", "bool", ["pr", "ev"])]),
    ("Outside", "8A", [("11", "float", ["pr", "ev"])]),
    (
      "Sensor battery", "96",
      [("68", "uint8", ["pr", "ev"]), ("8F", "uint8", ["pr", "ev"]), ("79", "uint8", ["pr", "ev"])]
    ),
  ]

  /// Hub input port -> (accessory, characteristic type, value sent, value aiohomekit sees).
  static let hubSide: [(String, String, String, String, JSONValue)] = [
    ("homekit.garage.current_door_state", "Garage", "E", "1", .integer(1)),
    ("homekit.garage.obstruction_detected", "Garage", "24", "true", .bool(true)),
    ("homekit.front_door.lock_current_state", "Front door", "1D", "1", .integer(1)),
    ("homekit.back_door.contact_sensor_state", "Back door", "6A", "1", .integer(1)),
    ("homekit.hall.motion_detected", "Hall", "22", "true", .bool(true)),
    ("homekit.outside.current_temperature", "Outside", "11", "21.5", .number(21.5)),
    ("homekit.sensor_battery.battery_level", "Sensor battery", "68", "15", .integer(15)),
    ("homekit.sensor_battery.charging_state", "Sensor battery", "8F", "1", .integer(1)),
    ("homekit.sensor_battery.status_low_battery", "Sensor battery", "79", "1", .integer(1)),
  ]

  @Test func garageDoorLockSensorsAndBatteryReadWrittenAndEvented() throws {
    let bridge = try HomeKitBridgeUnderTest(name: "Services Bridge")
    try bridge.writeConfig(accessories: Self.accessories, probePorts: Self.probe, extra: Self.routes)
    try bridge.start()
    let controller = try AiohomekitController(port: try bridge.port())
    do {
      try exercise(bridge, controller)
    } catch {
      Issue.record("\(error)\ntranscript:\n\(controller.transcript)\nhub:\n\(bridge.hub.log)")
    }
  }

  func exercise(_ bridge: HomeKitBridgeUnderTest, _ controller: AiohomekitController) throws {
    let port = try bridge.port()
    let pairing = try controller.send(["cmd": "pair", "pin": try bridge.identity("setup_code")])
    let listed = ListedAccessories(json: try controller.send(["cmd": "accessories"]))
    #expect(listed.accessories.count == 7)

    // Every service and characteristic as the reference's table has it.
    for (name, service, characteristics) in Self.table {
      #expect(listed.serviceTypes(name) == ["3E", service], "\(name)")
      for (type, format, perms) in characteristics {
        let found = try #require(listed.characteristic(name, type), "\(name) \(type)")
        #expect(found.json["format"]?.stringValue == format, "\(name) \(type): \(found.json)")
        #expect(found.json["perms"]?.arrayValue?.compactMap(\.stringValue) == perms, "\(name) \(type): \(found.json)")
      }
    }
    let all = Self.hubSide.compactMap { listed.id($0.1, $0.2) }
    #expect(all.count == Self.hubSide.count)

    // Subscribe to everything; each hub-side value arrives as an event and is what a read gives.
    // A second session of the same controller (the same pairing id, as an Apple ID's iPad shares
    // its iPhone's) watches too: the writes below must reach it as events.
    let writable = [try #require(listed.id("Garage", "32")), try #require(listed.id("Front door", "1E"))]
    try controller.send(["cmd": "subscribe", "ids": all])
    let observer = try AiohomekitController(port: port)
    try observer.send(["cmd": "load", "name": "observer", "data": pairing.foundation])
    try observer.send(["cmd": "subscribe", "name": "observer", "ids": writable])
    for (address, name, type, text, expected) in Self.hubSide {
      let key = try #require(listed.key(name, type))
      try bridge.hub.send(address, text)
      try controller.waitForEvent { events in events.contains { $0[key, "value"] == expected } }
      let read = try controller.send(["cmd": "get", "ids": [try #require(listed.id(name, type))]])
      #expect(read[key, "value"] == expected, "\(address): \(read)")
    }

    // The target states take only timed writes: a plain write is -70410 and reaches nothing.
    let garageTarget = writable[0]
    let lockTarget = writable[1]
    for target in writable {
      let plain = try controller.send(["cmd": "put", "values": [[target[0], target[1], 1]]])
      #expect(plain["\(target[0]).\(target[1])", "status"] == .integer(-70410), "\(plain)")
    }
    // Read-only characteristics refuse writes (-70404), timed or not; out of range is -70410.
    let current = try #require(listed.id("Garage", "E"))
    let readOnly = try controller.send(["cmd": "put", "values": [[current[0], current[1], 0]]])
    #expect(readOnly["\(current[0]).\(current[1])", "status"] == .integer(-70404), "\(readOnly)")
    try controller.send(["cmd": "prepare", "body": ["ttl": 3_600_000, "pid": 7]])
    let outOfRange = try controller.send([
      "cmd": "put_raw",
      "body": ["characteristics": [["aid": garageTarget[0], "iid": garageTarget[1], "value": 2]], "pid": 7],
    ])
    #expect("\(outOfRange)".contains("-70410"), "\(outOfRange)")

    // A timed write inside /prepare's ttl lands on the hub's side and is an event to the other session.
    for (target, port, pid) in [(garageTarget, "garage_target", 8), (lockTarget, "lock_target", 9)] {
      let prepared = try controller.send(["cmd": "prepare", "body": ["ttl": 3_600_000, "pid": pid]])
      #expect(prepared["status"] == .integer(0), "\(prepared)")
      try controller.send([
        "cmd": "put_raw",
        "body": ["characteristics": [["aid": target[0], "iid": target[1], "value": 1]], "pid": pid],
      ])
      try eventually("\(port) 1 recorded: \(bridge.recorded())") {
        bridge.recorded().contains(#"{"port":"\#(port)","value":1}"#)
      }
      let key = "\(target[0]).\(target[1])"
      try observer.waitForEvent { events in events.contains { $0[key, "value"] == .integer(1) } }
      #expect(try controller.send(["cmd": "get", "ids": [target]])[key, "value"] == .integer(1))
    }
    // The controller's own writes are not echoed to it.
    #expect(!controller.events.contains { $0["\(garageTarget[0]).\(garageTarget[1])"] != nil })
    // Not subscribed: the observer saw no sensor events.
    #expect(
      observer.events.allSatisfy { event in
        event.objectValue?.keys.allSatisfy { key in
          writable.contains { "\($0[0]).\($0[1])" == key }
        } ?? false
      })
    print("aiohomekit transcript (services):\n\(controller.transcript)")
  }
}
