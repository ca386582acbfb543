import HAP
import HomeKitProtocol
import PatchbayPluginKit
import PatchbayValues
import Synchronization
import Testing

@testable import HomeKitPlugin

/// Values both ways: controller writes validated (-70410, never a crash) and published on the
/// accessory's ports; hub values become characteristic values and events only when they change.
struct BridgeAccessoriesTests {
  final class Recorder: ChangeNotifier {
    let events = Mutex<[([(HAPCharacteristicID, JSONValue)], Bool, String?)]>([])
    func notify(_ changes: [(HAPCharacteristicID, JSONValue)], immediately: Bool, except: String?) {
      events.withLock { $0.append((changes, immediately, except)) }
    }
    var count: Int { events.withLock { $0.count } }
    var all: [([(HAPCharacteristicID, JSONValue)], Bool, String?)] { events.withLock { $0 } }
  }

  final class Published: Sendable {
    let values = Mutex<[(Value, String)]>([])
    var all: [(Value, String)] { values.withLock { $0 } }
  }

  let recorder = Recorder()
  let published = Published()
  let bridge: BridgeAccessories
  let config: HomeKitConfig

  init() throws {
    config = try PluginContext.decodeConfig(
      HomeKitConfig.self,
      json: #"""
        {"accessories": [
          {"name": "Lamp", "service": "lightbulb"},
          {"name": "Button", "service": "programmable_switch"},
          {"name": "Front door", "service": "lock"},
          {"name": "Heater", "service": "switch"},
          {"name": "Hall", "service": "temperature_sensor"}
        ]}
        """#)
    var identifiers = AccessoryIdentifiers()
    let database = AccessoryDatabase(
      bridgeName: "Bridge", accessories: config.accessories, serialNumber: "AA", identifiers: &identifiers)
    let published = self.published
    bridge = BridgeAccessories(
      database: database, accessories: config.accessories,
      publish: { value, port in published.values.withLock { $0.append((value, port)) } }, log: { _ in },
      pairingsChanged: { _ in })
    bridge.connect(recorder)
  }

  func id(_ type: String, _ accessory: Int) -> HAPCharacteristicID {
    bridge.database.id(of: type, accessory: accessory)!
  }

  func write(_ id: HAPCharacteristicID, _ value: JSONValue, timed: Bool = false) async -> HAPWriteResult {
    await bridge.writeCharacteristics(
      [HAPWrite(id: id, value: value, wantsResponse: true, isTimed: timed)], controller: "controller-1")[0]
  }

  @Test func portsAreHomebridgeWebsocketsNames() {
    let names = bridge.ports.flatMap(\.ports).map(\.name)
    #expect(
      names == [
        "lamp.on", "lamp.on.set", "lamp.brightness", "lamp.brightness.set", "lamp.hue", "lamp.hue.set",
        "lamp.saturation", "lamp.saturation.set", "lamp.color_temperature", "lamp.color_temperature.set",
        "lamp.light", "lamp.light.set", "lamp.color", "lamp.color.set", "button.button",
        "front_door.lock_current_state", "front_door.lock_target_state", "front_door.lock_target_state.set",
        "heater.on", "heater.on.set", "hall.current_temperature",
      ])
    let mirrored = bridge.ports.flatMap(\.ports).filter(\.isOutput).allSatisfy { $0.mirrors != nil }
    #expect(mirrored)
  }

  @Test(arguments: [
    ("25", 0, JSONValue.string("yes")),  // On is bool
    ("25", 0, .integer(2)),
    ("8", 0, .integer(101)),  // Brightness 0...100
    ("8", 0, .number(50.5)),  // an int
    ("13", 0, .number(361)),  // Hue 0...360
    ("CE", 0, .integer(100)),  // ColorTemperature 140...500
    ("CE", 0, .null),
    ("1E", 2, .integer(1)),  // LockTargetState needs a timed write
  ])
  func invalidWritesGetMinus70410(type: String, accessory: Int, value: JSONValue) async {
    let result = await write(id(type, accessory), value)
    #expect(result.status == .invalidValue)
    #expect(published.all.isEmpty)
    #expect(recorder.count == 0)
  }

  @Test func otherWriteErrors() async {
    #expect(await write(HAPCharacteristicID(aid: 99, iid: 9), .bool(true)).status == .resourceDoesNotExist)
    #expect(await write(id("11", 4), .number(20)).status == .readOnly)
    #expect(await write(id("73", 1), .integer(0)).status == .readOnly)
    let results = await bridge.readCharacteristics([id("11", 4), HAPCharacteristicID(aid: 2, iid: 2)], fields: [])
    #expect(results.map(\.status) == [.success, .writeOnly])  // Identify cannot be read
  }

  @Test func writeBecomesAValueOnTheSetPorts() async {
    let result = await write(id("25", 3), .integer(1))  // bool written as 1
    #expect(result.status == .success)
    #expect(result.value == .bool(true))
    #expect(published.all.map(\.1) == ["heater.on.set"])
    #expect(published.all.first?.0 == .bool(true))
    // Other controllers get the event, not the writer.
    #expect(recorder.all.first?.2 == "controller-1")
    // The same value again changes nothing.
    _ = await write(id("25", 3), .bool(true))
    #expect(published.all.count == 1)
  }

  @Test func lightbulbWritesBecomeLightCommands() async {
    _ = await write(id("8", 0), .integer(40))
    _ = await write(id("13", 0), .number(120))
    let values = published.values.withLock { $0 }
    #expect(
      values.map(\.1) == [
        "lamp.brightness.set", "lamp.light.set", "lamp.color.set", "lamp.hue.set", "lamp.light.set", "lamp.color.set",
      ])
    #expect(values.contains { $0.1 == "lamp.light.set" && $0.0 == .light(LightCommand(brightness: 40)) })
    #expect(
      values.contains {
        $0.1 == "lamp.light.set"
          && $0.0 == .light(LightCommand(color: HSBColor(hue: 120, saturation: 0, brightness: 40)))
      })
    #expect(values.contains { $0.1 == "lamp.hue.set" && $0.0 == .number(120) })
  }

  @Test func timedLockWriteIsAccepted() async {
    let result = await write(id("1E", 2), .integer(1), timed: true)
    #expect(result.status == .success)
    #expect(published.all.map(\.1) == ["front_door.lock_target_state.set"])
    #expect(published.all.first?.0 == .integer(1))
  }

  @Test func hubValuesNotifyOnlyWhenChanged() async {
    let changes = bridge.receive(.light(LightCommand(on: true, brightness: 30)), onInput: "lamp.light")
    #expect(changes.map(\.0) == [id("8", 0), id("25", 0)])
    #expect(changes.map(\.1) == [.integer(30), .bool(true)])
    #expect(bridge.receive(.light(LightCommand(on: true, brightness: 30)), onInput: "lamp.light").isEmpty)
    #expect(bridge.receive(.bool(true), onInput: "lamp.on").isEmpty)
    #expect(recorder.count == 1)
    // Out of range or the wrong type from the hub: not passed on.
    #expect(bridge.receive(.number(150), onInput: "hall.current_temperature").isEmpty)
    #expect(bridge.receive(.number(21.5), onInput: "hall.current_temperature").map(\.1) == [.number(21.5)])
    let read = await bridge.readCharacteristics([id("11", 4)], fields: [.meta, .perms, .type])
    #expect(read[0].value == .number(21.5))
    #expect(read[0].fields["type"] == .string("11"))
    #expect(read[0].fields["perms"] == .array([.string("pr"), .string("ev")]))
    #expect(read[0].fields["minValue"] == .number(-270))
    #expect(read[0].fields["unit"] == .string("celsius"))
  }

  /// Issue 45.6: a color converted back from a light group (Saturation 90.1575) is served on
  /// each characteristic's declared step and within its range, in GET answers and EVENTs alike:
  /// read as a controller reads it, with the metadata that declares the step.
  @Test func numbersAreServedOnTheirDeclaredStep() async throws {
    let hue = id("13", 0)
    let saturation = id("2F", 0)
    let brightness = id("8", 0)
    let temperature = id("11", 4)
    let colorChanges = bridge.receive(
      .color(HSBColor(hue: 200.4, saturation: 90.1575, brightness: 63.6)), onInput: "lamp.color")
    #expect(colorChanges.map(\.1) == [.number(200), .number(90), .integer(64)])
    let lightChanges = bridge.receive(
      .light(LightCommand(color: HSBColor(hue: 359.8, saturation: 33.3333, brightness: 64))), onInput: "lamp.light")
    #expect(lightChanges.map(\.1) == [.number(360), .number(33)])
    #expect(bridge.receive(.number(21.53), onInput: "hall.current_temperature").map(\.1) == [.number(21.5)])
    #expect(bridge.receive(.number(99.96), onInput: "hall.current_temperature").map(\.1) == [.number(100)])

    let events = recorder.all.flatMap(\.0)
    let read = await bridge.readCharacteristics([hue, saturation, brightness, temperature], fields: [.meta])
    for result in read {
      let value = try #require(result.value?.doubleValue, "\(result.id)")
      let minimum = try #require(result.fields["minValue"]?.doubleValue)
      let maximum = try #require(result.fields["maxValue"]?.doubleValue)
      let step = try #require(result.fields["minStep"]?.doubleValue)
      let steps = (value - minimum) / step
      #expect(abs(steps - steps.rounded()) < 1e-9, "\(result.id): \(value) is not on minStep \(step)")
      #expect(minimum <= value && value <= maximum, "\(result.id): \(value)")
      // The last EVENT of the characteristic carried the same value.
      #expect(events.last { $0.0 == result.id }?.1 == result.value, "\(result.id)")
    }
    #expect(read.map(\.value) == [.number(360), .number(33), .integer(64), .number(100)])
  }

  @Test func buttonPressesAreEventsEveryTimeAndReadNull() async {
    for action in [ButtonAction.click, .doubleClick, .hold, .click, .down] {
      bridge.receive(.button(ButtonEvent(action: action)), onInput: "button.button")
    }
    let events = recorder.events.withLock { $0 }
    #expect(events.map { $0.0.map(\.1) } == [[.integer(0)], [.integer(1)], [.integer(2)], [.integer(0)]])
    #expect(events.allSatisfy { $0.1 })  // immediately
    #expect(await bridge.readCharacteristics([id("73", 1)], fields: [])[0].value == .null)
    let database = await bridge.accessoryDatabase()
    #expect(
      database.description.contains(
        #""type":"73","perms":["pr","ev"],"format":"uint8","minValue":0,"maxValue":2,"minStep":1,"value":null"#))
  }

  @Test func eventStatus() async {
    #expect(await bridge.eventStatus(id("73", 1)) == .success)
    #expect(await bridge.eventStatus(HAPCharacteristicID(aid: 2, iid: 2)) == .notificationNotSupported)
    #expect(await bridge.eventStatus(HAPCharacteristicID(aid: 77, iid: 1)) == .resourceDoesNotExist)
  }

  @Test func restoresWhatControllersWroteOnlyWhereValid() async {
    let restored = BridgeAccessories(
      database: bridge.database, accessories: config.accessories, publish: { _, _ in }, log: { _ in },
      pairingsChanged: { _ in },
      restoring: [
        id("25", 3): .bool(true),  // Heater On: kept
        id("8", 0): .integer(500),  // Brightness out of range: dropped
        id("11", 4): .number(30),  // CurrentTemperature is not writable: dropped
      ])
    #expect(restored.value(of: id("25", 3)) == .bool(true))
    #expect(restored.value(of: id("8", 0)) == .integer(0))
    #expect(restored.value(of: id("11", 4)) == .number(0))
    #expect(restored.writableValues[id("25", 3)] == .bool(true))
  }
}
