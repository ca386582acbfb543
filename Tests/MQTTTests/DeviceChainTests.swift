import Foundation
import PatchbayTestSupport
import Testing

/// The two must-show chains, every part a real process: the flicd simulator, the flic,
/// mqtt and homebridge-websocket plugins each in their own plugin host under `patchbay run`,
/// a `mosquitto` broker, the `mosquitto_sub`/`mosquitto_pub` clients and the Homebridge
/// simulator.
@Suite(.serialized) struct DeviceChainTests {
  let directory: TemporaryDirectory
  let bedside = "80:e4:da:71:b6:8e"

  init() throws { directory = try TemporaryDirectory("patchbay-mqtt-chain") }

  /// flicd sim → flic → route → mqtt → mosquitto → mosquitto_sub: each click arrives, once,
  /// in order.
  @Test func flicClicksReachMosquittoSub() throws {
    let broker = try MosquittoBroker(directory: directory)
    let subscriber = try broker.subscribe(["home/bedside/action"])
    let flicd = try SimulatorUnderTest(.flicd, directory: directory, arguments: ["--button", "\(bedside)=bedside"])
    let flicdPort = flicd.port
    let hub = try MQTTHub(
      directory: directory,
      mqtt: .mqttBroker(port: broker.port).topic(
        "bedside", "button", ["kind": "event", "publish": "home/bedside/action"]),
      extra: HubTOML()
        .instance("buttons", plugin: "flic", ["port": .integer(flicdPort)])
        .arrayTable("instances.buttons.buttons", ["name": "bedside", "address": .string(bedside)])
        .route(from: "buttons.bedside.button", to: "mqtt.bedside"))
    try hub.waitConnected()
    try flicd.control("wait-channel \(bedside) 60")

    let gestures: [(press: String, action: String)] = [
      ("single", "click"), ("single", "click"), ("double", "double_click"), ("hold", "hold"), ("single", "click"),
    ]
    var expected: [String] = []
    for gesture in gestures {
      try flicd.control("press \(bedside) \(gesture.press)")
      expected.append(gesture.action)
      // One at a time: flicd reports a single click only after its double-click window.
      try eventually(
        "\(expected) on mosquitto_sub; it printed:\n\(subscriber.process.output)\nhub:\n\(hub.process.output)",
        within: 60
      ) {
        subscriber.payloads(on: "home/bedside/action").count >= expected.count
      }
    }
    #expect(subscriber.payloads(on: "home/bedside/action") == expected)
    // Event ports publish without retain: a subscriber that comes later sees none of them.
    #expect(subscriber.messages.allSatisfy { !$0.retained })
    let late = try broker.subscribe(["home/bedside/action", "test/late/done"])
    try broker.publish("test/late/done", "x")
    try eventually("the marker on the late subscriber: \(late.messages)") {
      late.payloads(on: "test/late/done") == ["x"]
    }
    #expect(late.payloads(on: "home/bedside/action").isEmpty)
  }

  /// mosquitto_pub → mosquitto → mqtt → route → homebridge-websocket → Homebridge simulator:
  /// the command topic's values become HomeKit characteristic writes.
  @Test func mosquittoPubReachesTheHomebridgeSimulator() throws {
    let broker = try MosquittoBroker(directory: directory)
    let homebridge = try SimulatorUnderTest(.homebridge, directory: directory)
    let hub = try MQTTHub(
      directory: directory,
      mqtt: .mqttBroker(port: broker.port)
        .topic(
          "good_morning", "bool",
          ["subscribe": "home/scene/good_morning/set", "payload_on": "ON", "payload_off": "OFF"]
        )
        .topic("desk_brightness", "integer", ["subscribe": "home/desk/brightness/set"]),
      extra: HubTOML()
        .instance("homekit", plugin: "homebridge-websocket", ["url": "ws://127.0.0.1:\(homebridge.port)"])
        .arrayTable("instances.homekit.accessories", ["name": "ws_morning", "service": "Switch"])
        .arrayTable(
          "instances.homekit.accessories", ["name": "desk", "service": "Lightbulb", "characteristics": ["brightness"]]
        )
        .routes(["mqtt.good_morning": "homekit.ws_morning.on", "mqtt.desk_brightness": "homekit.desk.brightness"]))
    try hub.waitConnected()
    try homebridge.process.waitForLine(containing: "add desk (Lightbulb)", within: 60)
    // The mqtt instance's subscriptions are in place once a ping through the broker shows.
    _ = try hub.watchReady(broker: broker)

    try broker.publish("home/scene/good_morning/set", "ON")
    try homebridge.process.waitForLine(containing: "setValue ws_morning.On = true", within: 60)
    try broker.publish("home/desk/brightness/set", "40")
    try homebridge.process.waitForLine(containing: "setValue desk.Brightness = 40", within: 60)
    try broker.publish("home/scene/good_morning/set", "OFF")
    try homebridge.process.waitForLine(containing: "setValue ws_morning.On = false", within: 60)
    // A payload the port cannot read is logged and never reaches HomeKit.
    try broker.publish("home/scene/good_morning/set", "maybe")
    try hub.process.waitForLine(
      containing: "ignored a message on 'home/scene/good_morning/set': 'maybe' is not ON or OFF", within: 60)
    try broker.publish("home/desk/brightness/set", "55")
    try homebridge.process.waitForLine(containing: "setValue desk.Brightness = 55", within: 60)
    #expect(homebridge.count("setValue ws_morning.On = true") == 1)
    #expect(homebridge.count("setValue ws_morning.On = false") == 1)
  }
}
