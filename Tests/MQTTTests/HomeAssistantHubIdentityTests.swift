import Foundation
import PatchbayHub
import PatchbayTestSupport
import PatchbayValues
import Testing

/// Two hubs on one broker, each with an instance named `mqtt` and the default topics: their
/// Home Assistant devices, entities and status topics stay apart, and one hub's last will marks
/// only its own entities offline.
@Suite(.serialized) struct HomeAssistantHubIdentityTests {
  static func config(port: Int) -> HubTOML {
    HubTOML.mqttBroker(port: port, ["keepalive_s": 5])
      .table("instances.mqtt.home_assistant")
      .homeAssistantEntity("desk_lamp", "switch")
  }

  /// The id the hub keeps in the instance's state directory.
  static func hubID(of directory: TemporaryDirectory) throws -> String {
    try String(contentsOfFile: directory.path + "/mqtt-state/instances/mqtt/hub-id", encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func twoHubsWithTheSameInstanceNameStayTwoDevices() throws {
    let brokerDirectory = try TemporaryDirectory("patchbay-mqtt-broker")
    let firstDirectory = try TemporaryDirectory("patchbay-mqtt-first")
    let secondDirectory = try TemporaryDirectory("patchbay-mqtt-second")
    let broker = try MosquittoBroker(directory: brokerDirectory)
    let ha = try broker.subscribe(["homeassistant/#", "patchbay/#"])
    let first = try MQTTHub(directory: firstDirectory, mqtt: Self.config(port: broker.port))
    let second = try MQTTHub(directory: secondDirectory, mqtt: Self.config(port: broker.port))
    try first.waitConnected()
    try second.waitConnected()
    let ids = (try Self.hubID(of: firstDirectory), try Self.hubID(of: secondDirectory))
    #expect(ids.0 != ids.1)
    func config(_ id: String) -> JSONValue? {
      ha.messages.last { $0.topic == "homeassistant/switch/patchbay_\(id)_mqtt/desk_lamp/config" }
        .flatMap { JSONValue.parse($0.payload) }
    }
    try eventually("both hubs' discovery configs; seen: \(ha.messages)", within: 60) {
      config(ids.0) != nil && config(ids.1) != nil
    }
    let (one, two) = (try #require(config(ids.0)), try #require(config(ids.1)))
    #expect(one["unique_id"] == .string("patchbay_\(ids.0)_mqtt_desk_lamp"))
    #expect(two["unique_id"] == .string("patchbay_\(ids.1)_mqtt_desk_lamp"))
    #expect(one["device"]?["identifiers"] == .array([.string("patchbay_\(ids.0)_mqtt")]))
    #expect(two["device"]?["identifiers"] == .array([.string("patchbay_\(ids.1)_mqtt")]))
    #expect(one["availability_topic"] == .string("patchbay/\(ids.0)/mqtt/status"))
    #expect(two["availability_topic"] == .string("patchbay/\(ids.1)/mqtt/status"))
    #expect(one["state_topic"] != two["state_topic"] && one["command_topic"] != two["command_topic"])
    // The entity id HA suggests stays what one hub had before hub ids (HA adds _2 for the other).
    #expect(one["object_id"] == .string("patchbay_mqtt_desk_lamp"))
    try eventually("both online; seen: \(ha.messages)") {
      ha.payloads(on: "patchbay/\(ids.0)/mqtt/status").last == "online"
        && ha.payloads(on: "patchbay/\(ids.1)/mqtt/status").last == "online"
    }
    // `patchbay status` shows the hub id.
    let status = try ChildProcess(BuildProducts.executable("patchbay"), ["status", "--config", first.configPath])
    _ = try status.waitForExit(within: 60)
    #expect(status.output.contains(ids.0), "\(status.output)")

    // The second hub vanishes (SIGKILL: its plugin host dies with it, no clean goodbye): the
    // broker publishes its last will, on its own status topic only.
    second.process.signal(SIGKILL)
    try eventually("the second hub's will; seen: \(ha.messages)", within: 60) {
      ha.payloads(on: "patchbay/\(ids.1)/mqtt/status").last == "offline"
    }
    #expect(ha.payloads(on: "patchbay/\(ids.0)/mqtt/status") == ["online"])
    #expect(first.process.isRunning)
  }
}
