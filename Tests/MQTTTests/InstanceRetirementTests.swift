import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

/// An mqtt instance removed from the config entirely: the hub runs its plugin once more
/// (`retire`, ABI 1.3) and everything it left retained on the broker goes: Home Assistant's
/// discovery configs, their state topics, its status topic. Removed by a reload; and removed
/// while the hub was down with the broker away too, which is retried until the broker is back.
@Suite(.serialized) struct InstanceRetirementTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-mqtt-retire") }

  static func entities(port: Int) -> HubTOML {
    HubTOML.mqttBroker(port: port, ["base_topic": "patchbay/test"]).homeAssistant()
      .homeAssistantEntity("desk_lamp", "switch")
      .homeAssistantEntity("door", "binary_sensor")
  }

  /// The hub's config with the mqtt instance removed (nothing else left).
  func configWithoutMQTT(_ hub: MQTTHub) throws {
    try """
    [hub]
    state_directory = "\(directory.path)/mqtt-state"
    control_socket = "\(directory.path)/mqtt-control.sock"
    """.write(toFile: hub.configPath, atomically: true, encoding: .utf8)
  }

  /// Every retained topic of the test's: HA's prefix and the instance's base topic.
  func retained(_ broker: MosquittoBroker) throws -> [String] {
    try broker.publish("zz/marker", "1", retain: true)
    let fresh = try broker.subscribe(["#"])
    try eventually("the retained marker; seen: \(fresh.messages)") {
      fresh.messages.contains { $0.topic == "zz/marker" }
    }
    return fresh.messages.filter {
      $0.retained && ($0.topic.hasPrefix("homeassistant/") || $0.topic.hasPrefix("patchbay/test/"))
    }.map(\.topic)
  }

  func announced(_ hub: MQTTHub, _ broker: MosquittoBroker) throws {
    try hub.waitConnected()
    try hub.send("mqtt.ha.desk_lamp.state", "true")
    try hub.send("mqtt.ha.door.state", "false")
    try eventually("2 configs, 2 states and the status retained", within: 60, pollEvery: 1) {
      let topics = try retained(broker)
      return topics.count == 5 && topics.contains("patchbay/test/status")
        && topics.contains("patchbay/test/ha/door/state")
    }
  }

  @Test func aReloadWithoutTheInstanceClearsWhatItRetained() throws {
    let broker = try MosquittoBroker(directory: directory)
    let hub = try MQTTHub(directory: directory, mqtt: Self.entities(port: broker.port))
    try announced(hub, broker)

    try configWithoutMQTT(hub)
    let reload = try runProgram(BuildProducts.executable("patchbay"), ["reload", "--config", hub.configPath])
    #expect(reload.status == 0, "\(reload.output)")
    try hub.process.waitForLine(containing: "retired removed instance mqtt (mqtt)", within: 90)
    print(hub.process.lines.filter { $0.contains("retired removed instance") }.joined(separator: "\n"))
    try eventually("nothing of the instance retained", within: 60, pollEvery: 1) { try retained(broker).isEmpty }
    // Done once: a second reload retires nothing more.
    let again = try runProgram(BuildProducts.executable("patchbay"), ["reload", "--config", hub.configPath])
    #expect(again.status == 0)
    try hub.process.waitForLine(containing: "reloaded:", within: 60)
    #expect(hub.process.lines.filter { $0.contains("retired removed instance") }.count == 1, "\(hub.process.output)")
  }

  @Test func removedWhileTheHubWasDownAndTheBrokerAwayIsRetriedUntilDone() throws {
    let broker = try MosquittoBroker(directory: directory)
    var hub: MQTTHub? = try MQTTHub(directory: directory, mqtt: Self.entities(port: broker.port))
    try announced(try #require(hub), broker)
    let configPath = try #require(hub).configPath
    try hub?.process.terminate(within: 60)
    let stopped = try #require(hub)
    hub = nil
    try configWithoutMQTT(stopped)

    // The broker is away: the retirement fails, says so, and is kept for the next start.
    try broker.stop()
    let first = try ChildProcess(BuildProducts.executable("patchbay"), ["run", "--config", configPath])
    try first.waitForLine(
      containing: "removed instance mqtt (mqtt) could not undo what it left outside the hub", within: 120)
    _ = try first.terminate(within: 60)

    try broker.restart()
    let second = try ChildProcess(BuildProducts.executable("patchbay"), ["run", "--config", configPath])
    try second.waitForLine(containing: "retired removed instance mqtt (mqtt)", within: 120)
    try eventually("nothing of the instance retained", within: 60, pollEvery: 1) { try retained(broker).isEmpty }
    _ = try second.terminate(within: 60)
  }
}
