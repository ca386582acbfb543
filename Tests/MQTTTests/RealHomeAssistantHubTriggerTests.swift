import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

/// The hub's own device triggers ("connected", "went away") in a real Home Assistant: an
/// automation on each runs once per real transition of the hub, and not when it is made nor
/// when HA starts again (issue 45.2: on the retained status topic they ran at every HA start).
/// The automations publish to `test/automation/NAME`, which a mosquitto_sub counts.
@Suite(.serialized) struct RealHomeAssistantHubTriggerTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-real-ha-triggers") }

  static let eventTopic = "patchbay/trigger-test/event"

  /// A hub with a device of its own, so its device gets the two triggers.
  static func hub(_ broker: MosquittoBroker, _ directory: TemporaryDirectory) throws -> MQTTHub {
    let hub = try MQTTHub(
      directory: directory,
      mqtt: .mqttBroker(port: broker.port, ["base_topic": "patchbay/trigger-test"])
        .homeAssistant()
        .homeAssistantDevice("porch", ["title": "Porch bulb"])
        .homeAssistantEntity("porch_light", "switch", ["device": "porch"]))
    try hub.waitConnected()
    return hub
  }

  /// How often HA subscribed to the hub's event topic (the broker logs each subscription).
  static func subscriptions(_ broker: MosquittoBroker) -> Int {
    broker.process?.lines.filter { $0.hasSuffix(" " + eventTopic) }.count ?? 0
  }

  @Test(arguments: HomeAssistantUnderTest.releases)
  func hubTriggersFireOncePerTransition(_ release: HomeAssistantUnderTest.Release) throws {
    let broker = try MosquittoBroker(directory: directory, listenerOptions: "log_type subscribe")
    let runs = try broker.subscribe(["test/automation/#"])
    func count(_ name: String) -> Int { runs.payloads(on: "test/automation/\(name)").count }
    var ha = try HomeAssistantUnderTest(directory: directory, release: release)
    try ha.addMQTT(port: broker.port)
    var hub: MQTTHub? = try Self.hub(broker, directory)

    var hubDevice = ""
    try ha.eventually("the hub's device in HA") {
      hubDevice = try ha.devices().first { $0["name"]?.stringValue == "Test hub" }?["id"]?.stringValue ?? ""
      return !hubDevice.isEmpty
    }
    var triggers: [JSONValue] = []
    try ha.eventually("the hub's two triggers: \(triggers)") {
      triggers = try ha.deviceTriggers(hubDevice).filter { $0["domain"]?.stringValue == "mqtt" }
      return triggers.count == 2
    }
    // An automation per trigger, saved as the editor saves it, while the hub is connected.
    for (type, name) in [("turn_on", "connected"), ("turn_off", "away")] {
      let listed = try #require(triggers.first { $0["type"]?.stringValue == type }, "\(triggers)")
      let trigger = ["platform", "trigger", "domain", "device_id", "type", "subtype", "discovery_id"].compactMap {
        key in
        listed[key].map { (key, $0.foundation) }
      }
      try ha.saveAutomation(
        id: "hub_\(name)",
        [
          "alias": "hub \(name)", "trigger": [Dictionary(trigger, uniquingKeysWith: { first, _ in first })],
          "action": [["service": "mqtt.publish", "data": ["topic": "test/automation/\(name)", "payload": "ran"]]],
        ])
    }
    // Both attached: HA subscribed to the event topic (it shares one subscription per topic).
    try ha.eventually("HA subscribed to \(Self.eventTopic); broker:\n\(broker.process?.output ?? "")") {
      Self.subscriptions(broker) >= 1
    }

    // A real transition: the hub stops cleanly. "went away" runs once; "connected" never ran,
    // though the retained status said online when the automation was made.
    _ = try hub?.process.terminate(within: 60)
    hub = nil
    try ha.eventually("went away to run; runs:\n\(runs.process.output)") { count("away") == 1 }
    #expect(count("connected") == 0, "connected ran without a transition: \(runs.messages)")
    hub = try Self.hub(broker, directory)
    try ha.eventually("connected to run; runs:\n\(runs.process.output)") { count("connected") == 1 }

    // HA starts again while the hub is connected: nothing runs, until the hub really goes.
    try ha.stop()
    var subscribed = Self.subscriptions(broker)
    ha = try HomeAssistantUnderTest(directory: directory, release: release)
    try ha.eventually("HA to subscribe to \(Self.eventTopic) again") { Self.subscriptions(broker) > subscribed }
    _ = try hub?.process.terminate(within: 60)
    hub = nil
    try ha.eventually("went away to run a second time; runs:\n\(runs.process.output)") { count("away") == 2 }
    #expect(count("connected") == 1, "connected ran at HA's start: \(runs.messages)")

    // HA starts again while the hub is away: "went away" does not run again.
    try ha.stop()
    subscribed = Self.subscriptions(broker)
    ha = try HomeAssistantUnderTest(directory: directory, release: release)
    try ha.eventually("HA to subscribe to \(Self.eventTopic) again") { Self.subscriptions(broker) > subscribed }
    hub = try Self.hub(broker, directory)
    try ha.eventually("connected to run a second time; runs:\n\(runs.process.output)") { count("connected") == 2 }
    #expect(count("away") == 2, "went away ran at HA's start: \(runs.messages)")
    try ha.stop()
  }
}
