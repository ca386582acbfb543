import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

/// Two hubs, one broker: a port shared by one is imported by the other, through a broker
/// restart, with nothing lost, nothing twice and the order kept.
@Suite(.serialized) struct HubToHubTests {
  /// MQTT 3.1.1 (clean session off) and MQTT 5 (clean start off, session expiry set).
  @Test(arguments: ["3.1.1", "5"])
  func aThousandEventsArriveOnceAndInOrderThroughABrokerRestart(protocolVersion: String) throws {
    let brokerDirectory = try TemporaryDirectory("patchbay-mqtt-broker")
    let atticDirectory = try TemporaryDirectory("patchbay-mqtt-attic")
    let bedroomDirectory = try TemporaryDirectory("patchbay-mqtt-bedroom")
    let broker = try MosquittoBroker(directory: brokerDirectory)
    let shared: [HubTOML.Port] = [.event("counter", "integer"), .state("mode", "text")]
    func settings(hubName: String) -> HubTOML {
      .mqttBroker(
        port: broker.port, ["hub_name": .string(hubName), "protocol": .string(protocolVersion), "retry_max_s": 1])
    }
    let attic = try MQTTHub(
      directory: atticDirectory,
      mqtt: settings(hubName: "attic").table("instances.mqtt.share", ["ports": .ports(shared)]))
    let record = bedroomDirectory.path + "/probe.jsonl"
    let bedroom = try MQTTHub(
      directory: bedroomDirectory,
      mqtt: settings(hubName: "bedroom").importing(shared[0], from: "attic").importing(shared[1], from: "attic"),
      extra: HubTOML()
        .probe(record: record, ports: shared)
        .routes(["mqtt.import.attic.counter": "probe.counter", "mqtt.import.attic.mode": "probe.mode"]))
    try attic.waitConnected()
    try bedroom.waitConnected()
    let envelopes = try broker.subscribe(["patchbay/attic/mqtt/mode"])

    func recorded(_ port: String) -> [JSONValue] { ProbeRecord(path: record).values(port) }

    try attic.send("mqtt.share.mode", #""party""#)
    try eventually("state shared; probe: \(recorded("mode"))") { recorded("mode") == [.string("party")] }
    try eventually("the envelope on the broker; seen: \(envelopes.messages)") { !envelopes.messages.isEmpty }
    let envelope = try #require(envelopes.messages.first.flatMap { JSONValue.parse($0.payload) })
    #expect(envelope["type"] == .string("text") && envelope["kind"] == .string("state"))
    #expect(envelope["value"] == .string("party") && envelope["seq"] == .integer(1))
    #expect(envelope["time"]?.doubleValue != nil && envelope["epoch"]?.doubleValue != nil)

    for value in 1...400 { try attic.send("mqtt.share.counter", String(value)) }
    try broker.stop()
    for value in 401...600 { try attic.send("mqtt.share.counter", String(value)) }
    try broker.restart()
    for value in 601...1000 { try attic.send("mqtt.share.counter", String(value)) }

    try eventually(
      "1000 events at the bedroom hub; \(recorded("counter").count) so far; attic:\n\(attic.process.lines.suffix(25).joined(separator: "\n"))\nbedroom:\n\(bedroom.process.lines.suffix(25).joined(separator: "\n"))\nbroker:\n\(broker.process?.output ?? "")",
      within: 120
    ) {
      recorded("counter").count >= 1000
    }
    // A moment for any duplicate to show up, then: all, once, in order.
    try? eventually("duplicates, if any", within: 3) { recorded("counter").count > 1000 }
    let values = recorded("counter").compactMap(\.doubleValue).map(Int.init)
    #expect(values == Array(1...1000), "first difference at \(values.indices.first { values[$0] != $0 + 1 } ?? -1)")
    #expect(attic.process.output.contains("not reachable"), "the sender saw the broker go away")
    // The retained state survives the restart and was not delivered a second time.
    #expect(recorded("mode") == [.string("party")])
    print(
      "hub to hub (MQTT \(protocolVersion)): \(values.count) events; duplicates dropped at the importer: \(bedroom.process.lines.filter { $0.contains("dropped a duplicate") }.count)"
    )
  }
}
