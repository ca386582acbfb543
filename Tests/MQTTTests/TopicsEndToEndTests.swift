import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Topics as ports against real processes: a `mosquitto` broker, `mosquitto_pub`/`_sub` as the
/// other side, and the mqtt plugin in its own process under `patchbay run`.
@Suite(.serialized) struct TopicsEndToEndTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-mqtt") }

  func topics(port: Int, extra: KeyValuePairs<String, HubTOML.Value> = [:]) -> HubTOML {
    HubTOML.mqttBroker(port: port, ["base_topic": "test/hub", "max_payload_bytes": 1024])
      .keys(extra)
      .topic(
        "lamp", "bool",
        ["subscribe": "home/lamp/state", "publish": "home/lamp/set", "payload_on": "ON", "payload_off": "OFF"]
      )
      .topic(
        "temperature", "number",
        ["subscribe": "home/sensor", "json_path": "climate.temperature", "min": -40, "max": 60]
      )
      .topic("doorbell", "trigger", ["subscribe": "home/doorbell"])
      .topic("level", "integer", ["kind": "event", "publish": "home/level"])
      .topic("note", "text", ["publish": "home/note", "format": "json", "json_path": "message"])
      .topic("room_temperature", "number", ["subscribe": "rooms/+/temperature", "each": ["kitchen", "hall"]])
  }

  @Test func hubValuesReachTheBrokerAndBrokerMessagesReachPorts() throws {
    let broker = try MosquittoBroker(directory: directory)
    let subscriber = try broker.subscribe(["home/#", "test/hub/status"])
    let hub = try MQTTHub(directory: directory, mqtt: topics(port: broker.port))
    try hub.waitConnected()
    try eventually("status online; seen: \(subscriber.messages)") {
      subscriber.payloads(on: "test/hub/status") == ["online"]
    }

    // Hub -> broker: a state port (retained, ON/OFF words), an event port (every value, in order).
    try hub.send("mqtt.lamp.set", "true")
    try eventually("ON published; seen: \(subscriber.messages)") { subscriber.payloads(on: "home/lamp/set") == ["ON"] }
    try hub.send("mqtt.lamp.set", "false")
    for level in 1...20 { try hub.send("mqtt.level", String(level)) }
    try hub.send("mqtt.note", #""hello, broker""#)
    try eventually("every value published; seen: \(subscriber.messages)") {
      subscriber.payloads(on: "home/lamp/set") == ["ON", "OFF"]
        && subscriber.payloads(on: "home/level") == (1...20).map(String.init)
        && subscriber.payloads(on: "home/note") == [#"{"message":"hello, broker"}"#]
    }
    // State ports are retained: a late subscriber gets the newest lamp state at once.
    let late = try broker.subscribe(["home/lamp/set", "home/level"])
    try eventually("retained OFF for a late subscriber; seen: \(late.messages)") {
      late.messages == [.init(retained: true, topic: "home/lamp/set", payload: "OFF")]
    }

    // Broker -> hub.
    let watch = try hub.watchReady(broker: broker)
    try broker.publish("home/lamp/state", "ON")
    try broker.publish("home/sensor", #"{"climate":{"temperature":21.5,"humidity":40}}"#)
    try broker.publish("home/doorbell", "pressed")
    try broker.publish("rooms/kitchen/temperature", "19.25")
    try broker.publish("rooms/hall/temperature", "17")
    try eventually("values on the output ports; watch:\n\(watch.process.output)") {
      watch.values("mqtt.lamp").last == .bool(true) && watch.values("mqtt.temperature").last == .number(21.5)
        && watch.values("mqtt.doorbell").count == 1
        && watch.values("mqtt.room_temperature.kitchen").last == .number(19.25)
        && watch.values("mqtt.room_temperature.hall").last?.doubleValue == 17
    }
    try broker.publish("home/lamp/state", "OFF")
    try eventually("lamp off; watch:\n\(watch.process.output)") { watch.values("mqtt.lamp").last == .bool(false) }

    // A clean stop leaves `offline` retained on the status topic.
    try hub.process.terminate(within: 60)
    try eventually("status offline; seen: \(subscriber.messages)") {
      subscriber.payloads(on: "test/hub/status") == ["online", "offline"]
    }
  }

  @Test func malformedPayloadsAreLoggedAndIgnoredAndThePluginKeepsWorking() throws {
    let broker = try MosquittoBroker(directory: directory)
    let hub = try MQTTHub(directory: directory, mqtt: topics(port: broker.port))
    try hub.waitConnected()
    let watch = try hub.watchReady(broker: broker)
    try broker.publish("home/sensor", #"{"climate":{"temperature":20}}"#)
    try eventually("first value; watch:\n\(watch.process.output)") {
      watch.values("mqtt.temperature").last?.doubleValue == 20
    }

    let bad: [(topic: String, payload: String, logged: String)] = [
      ("home/lamp/state", "banana", "ignored a message on 'home/lamp/state': 'banana' is not ON or OFF"),
      ("home/sensor", "not json", "ignored a message on 'home/sensor': payload is not JSON"),
      ("rooms/kitchen/temperature", "warm", "ignored a message on 'rooms/kitchen/temperature': 'warm' is not a number"),
      ("rooms/attic/temperature", "20", "ignored a message on 'rooms/attic/temperature': level 'attic' is not in"),
      (
        "rooms/hall/temperature", String(repeating: "9", count: 2000),
        "payload of 2000 bytes is above max_payload_bytes"
      ),
    ]
    for message in bad { try broker.publish(message.topic, message.payload) }
    for message in bad { try hub.process.waitForLine(containing: message.logged, within: 30) }
    // Rate-limited per topic: a second wrong value on home/sensor within 10 s is not logged again.
    try broker.publish("home/sensor", #"{"climate":{"humidity":40}}"#)
    try broker.publish("home/sensor", #"{"climate":{"temperature":99}}"#)

    // Still working, and nothing wrong was published.
    try broker.publish("home/sensor", #"{"climate":{"temperature":22.5}}"#)
    try broker.publish("home/lamp/state", "ON")
    try eventually("good values after the bad ones; watch:\n\(watch.process.output)") {
      watch.values("mqtt.temperature").last == .number(22.5) && watch.values("mqtt.lamp").last == .bool(true)
    }
    #expect(watch.values("mqtt.temperature").map(\.doubleValue) == [20, 22.5])
    #expect(watch.values("mqtt.room_temperature.hall").isEmpty)
    #expect(watch.values("mqtt.room_temperature.kitchen").isEmpty)
    #expect(hub.process.lines.filter { $0.contains("ignored a message on 'home/sensor'") }.count == 1)
    #expect(!hub.process.output.contains("restarting"), "the instance was restarted")
    #expect(hub.process.isRunning)
  }

  @Test func theBrokerGoingAwayIsSurvivedAndStateWaitsForIt() throws {
    let broker = try MosquittoBroker(directory: directory)
    let hub = try MQTTHub(directory: directory, mqtt: topics(port: broker.port, extra: ["retry_max_s": 2]))
    try hub.waitConnected()
    let watch = try hub.watchReady(broker: broker)

    // A persistent subscriber: what the hub publishes after the restart reaches it even if it
    // reconnects later than the hub.
    let levels = try broker.subscribe(["home/level"], persistentID: "levels")
    try broker.stop()
    try eventually("disconnected; watch:\n\(watch.process.output)", within: 60) {
      watch.values("mqtt.connected").last == .bool(false)
    }
    try hub.process.waitForLine(containing: "not reachable", within: 60)
    // Values sent while the broker is away wait: the lamp's newest state and every level event.
    try hub.send("mqtt.lamp.set", "true")
    try hub.send("mqtt.lamp.set", "false")
    for level in 1...5 { try hub.send("mqtt.level", String(level)) }

    try broker.restart()
    let subscriber = try broker.subscribe(["home/lamp/set"])
    try eventually("reconnected; watch:\n\(watch.process.output)", within: 60) {
      watch.values("mqtt.connected").last == .bool(true)
    }
    try eventually("the newest lamp state, retained, after the reconnect; seen: \(subscriber.messages)") {
      subscriber.messages.last?.payload == "OFF"
    }
    #expect(!subscriber.payloads(on: "home/lamp/set").contains("ON"))
    try eventually("the events sent while the broker was away, in order; seen: \(levels.messages)", within: 60) {
      levels.payloads(on: "home/level") == ["1", "2", "3", "4", "5"]
    }
  }

  @Test func aCrashedInstanceIsAnnouncedOfflineByItsLastWillAndOnlineAfterTheRestart() throws {
    let broker = try MosquittoBroker(directory: directory)
    let status = try broker.subscribe(["test/hub/status"])
    let hub = try MQTTHub(directory: directory, mqtt: topics(port: broker.port))
    try hub.waitConnected()
    try eventually("online; seen: \(status.messages)") { status.payloads(on: "test/hub/status") == ["online"] }
    let line = try #require(hub.process.lines.first { $0.contains("[mqtt] running (pid ") })
    let pid = try #require(Int32(line.split(separator: "(pid ").last?.prefix { $0.isNumber } ?? ""))
    kill(pid, SIGKILL)
    try eventually("offline from the last will, then online again; seen: \(status.messages)", within: 60) {
      status.payloads(on: "test/hub/status") == ["online", "offline", "online"]
    }
  }
}
