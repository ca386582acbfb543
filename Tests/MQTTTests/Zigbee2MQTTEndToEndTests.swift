import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

/// A Zigbee2MQTT light and remote through the broker, driven by a hub route.
@Suite(.serialized) struct Zigbee2MQTTEndToEndTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-mqtt-z2m") }

  @Test func aRouteDrivesAZigbeeLightAndItsStateComesBack() throws {
    let broker = try MosquittoBroker(directory: directory)
    let commands = try broker.subscribe(["zigbee2mqtt/Living Bulb/set"])
    let hub = try MQTTHub(
      directory: directory,
      mqtt: .mqttBroker(port: broker.port)
        .zigbee2mqtt("Living Bulb", kind: "light")
        .zigbee2mqtt("bedside remote", kind: "remote", ["name": "bedside"]),
      // A stand-in for an effect: what it receives on `scene` goes out on `scene.out`.
      extra: HubTOML()
        .probe("effect", ports: [.state("scene", "light")])
        .route(from: "effect.scene.out", to: "mqtt.living_bulb.light"))
    try hub.waitConnected()
    let watch = try hub.watchReady(broker: broker)
    // The bulb starts and reports its state.
    let bulb = try FakeZigbeeLight(directory: directory, port: broker.port, name: "Living Bulb")
    try eventually("initial state; watch:\n\(watch.process.output)") {
      guard let state = watch.values("mqtt.living_bulb.state").last else { return false }
      return state["on"] == .bool(false) && state["color_temperature"]?.doubleValue == 300
    }

    try hub.send(
      "effect.scene", #"{"on":true,"brightness":80,"color":{"hue":120,"saturation":100},"transition_ms":500}"#)
    try eventually("the bulb applied the command; bulb:\n\(bulb.process.output)") {
      bulb.applied.contains(
        #"{"brightness": 203, "color": {"hue": 120, "saturation": 100}, "state": "ON", "transition": 0.5}"#)
    }
    try eventually("its new state on the hub; watch:\n\(watch.process.output)") {
      guard let state = watch.values("mqtt.living_bulb.state").last else { return false }
      return state["on"] == .bool(true) && abs((state["brightness"]?.doubleValue ?? 0) - 79.9213) < 0.01
        && state["color"]?["hue"]?.doubleValue == 120 && state["color"]?["saturation"]?.doubleValue == 100
    }
    try hub.send("effect.scene", #"{"on":false}"#)
    try eventually("off; watch:\n\(watch.process.output)") {
      watch.values("mqtt.living_bulb.state").last?["on"] == .bool(false)
    }
    #expect(commands.messages.allSatisfy { !$0.retained }, "commands are not retained: \(commands.messages)")

    // The remote: actions become button events; every word reaches action_text.
    for action in ["single", "", "double", "brightness_move_up", "hold"] {
      try broker.publish("zigbee2mqtt/bedside remote", #"{"action":"\#(action)","battery":90}"#)
    }
    try eventually("remote actions; watch:\n\(watch.process.output)") {
      watch.values("mqtt.bedside.action") == [.string("click"), .string("double_click"), .string("hold")]
        && watch.values("mqtt.bedside.action_text")
          == [.string("single"), .string("double"), .string("brightness_move_up"), .string("hold")]
    }
  }

  @Test func partyLightsCycleAZigbeeBulbAndRestoreIt() throws {
    let broker = try MosquittoBroker(directory: directory)
    let hub = try MQTTHub(
      directory: directory,
      mqtt: .mqttBroker(port: broker.port).zigbee2mqtt("Party Bulb", kind: "light"),
      extra: HubTOML()
        .instance("party", plugin: "party-lights", ["lights": ["bulb"], "step_degrees": 60, "period_s": 6])
        .routes(["party.bulb.light": "mqtt.party_bulb.light", "mqtt.party_bulb.state": "party.bulb.state"]))
    try hub.waitConnected()
    let watch = try hub.watchReady(broker: broker)
    let bulb = try FakeZigbeeLight(directory: directory, port: broker.port, name: "Party Bulb")
    try eventually("the bulb's state reached the hub; watch:\n\(watch.process.output)") {
      watch.values("mqtt.party_bulb.state").last?["color_temperature"]?.doubleValue == 300
    }

    try hub.send("party.run", "true")
    try eventually("three colors applied; bulb:\n\(bulb.process.output)", within: 60) {
      Set(bulb.applied.filter { $0.contains(#""state": "ON""#) && $0.contains("hue") }).count >= 3
    }
    try hub.send("party.run", "false")
    // Restored (party-lights sets the attributes, then switches off): its color temperature, off.
    try eventually("restored; bulb:\n\(bulb.process.output)", within: 60) {
      guard let last = bulb.applied.last,
        let colorTemp = bulb.applied.lastIndex(where: { $0.contains(#""color_temp": 300"#) })
      else { return false }
      return last.contains(#""state": "OFF""#) && colorTemp > bulb.applied.lastIndex { $0.contains("hue") } ?? 0
    }
    try eventually("the hub sees it off at 300 mired; watch:\n\(watch.process.output)") {
      let state = watch.values("mqtt.party_bulb.state").last
      return state?["on"] == .bool(false) && state?["color_temperature"]?.doubleValue == 300
    }
  }
}
