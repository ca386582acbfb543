import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

/// The broker becoming unreachable (the link cut, the broker still running), as opposed to
/// the broker restarting (TopicsEndToEndTests, HubToHubTests): the broker is in a network
/// namespace of its own behind a veth pair, the hub in the test's namespace.
@Suite(
  .serialized,
  .disabled(if: BrokerNetwork.unavailable != nil, "needs root and iproute2 to make a network namespace (ip netns)"))
struct NetworkPartitionTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-mqtt-netns") }

  /// No packet crosses while the link is cut: the hub finds out by its keepalive, the broker
  /// by its own and publishes the hub's last will. Events sent meanwhile wait in the hub and
  /// arrive in order, once each, after the link heals.
  @Test func eventsSentWhileTheBrokerIsUnreachableArriveInOrderAfterTheLinkHeals() throws {
    let network = try BrokerNetwork()
    let broker = try MosquittoBroker(directory: directory, network: network)
    // Both on the broker's side of the cut: they see what the broker does meanwhile.
    let status = try broker.subscribe(["test/hub/status"])
    let levels = try broker.subscribe(["home/level"], persistentID: "levels")
    let hub = try MQTTHub(
      directory: directory,
      mqtt: """
        host = "\(broker.address)"
        port = \(broker.port)
        base_topic = "test/hub"
        client_id = "partitioned-hub"
        clean_session = false
        keepalive_s = 5
        retry_max_s = 2

        [[instances.mqtt.topics]]
        name = "level"
        type = "integer"
        kind = "event"
        publish = "home/level"
        """)
    try hub.process.waitForLine(containing: "connected to \(broker.address):\(broker.port)", within: 60)
    let watch = try hub.watchReady(broker: broker)
    for level in 1...5 { try hub.send("mqtt.level", String(level)) }
    try eventually("1 to 5 before the cut; seen: \(levels.messages)", within: 60) {
      levels.payloads(on: "home/level") == (1...5).map(String.init)
    }

    try network.cut()
    try eventually("the hub notices (keepalive); watch:\n\(watch.process.output)", within: 90) {
      watch.values("mqtt.connected").last == .bool(false)
    }
    try eventually("the broker publishes the last will; seen: \(status.messages)", within: 90) {
      status.payloads(on: "test/hub/status").last == "offline"
    }
    for level in 6...15 { try hub.send("mqtt.level", String(level)) }
    try hub.process.waitForLine(containing: "not reachable (no answer within the keepalive)", within: 60)
    #expect(levels.payloads(on: "home/level") == (1...5).map(String.init), "nothing crossed the cut link")

    try network.heal()
    try eventually("reconnected; watch:\n\(watch.process.output)", within: 90) {
      watch.values("mqtt.connected").last == .bool(true)
    }
    try eventually("all 15 in order; seen: \(levels.messages)\nhub:\n\(hub.process.output)", within: 90) {
      levels.payloads(on: "home/level").count >= 15
    }
    #expect(levels.payloads(on: "home/level") == (1...15).map(String.init), "in order, none twice")
    try eventually("online again; seen: \(status.messages)", within: 60) {
      status.payloads(on: "test/hub/status") == ["online", "offline", "online"]
    }

    // The broker must end before its namespace goes.
    _ = try hub.process.terminate(within: 60)
    try broker.stop()
    withExtendedLifetime(network) {}
  }
}
