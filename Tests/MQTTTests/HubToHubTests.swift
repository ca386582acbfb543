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
    let attic = try MQTTHub(
      directory: atticDirectory,
      mqtt: """
        host = "127.0.0.1"
        port = \(broker.port)
        hub_name = "attic"
        protocol = "\(protocolVersion)"
        retry_max_s = 1

        [instances.mqtt.share]
        ports = [{ name = "counter", type = "integer", kind = "event" }, { name = "mode", type = "text", kind = "state" }]
        """)
    let record = bedroomDirectory.path + "/probe.jsonl"
    let bedroom = try MQTTHub(
      directory: bedroomDirectory,
      mqtt: """
        host = "127.0.0.1"
        port = \(broker.port)
        hub_name = "bedroom"
        protocol = "\(protocolVersion)"
        retry_max_s = 1

        [[instances.mqtt.import]]
        hub = "attic"
        port = "counter"
        type = "integer"
        kind = "event"

        [[instances.mqtt.import]]
        hub = "attic"
        port = "mode"
        type = "text"
        kind = "state"
        """,
      extra: """
        [instances.probe]
        plugin = "example-swift"
        record = "\(record)"
        ports = [{ name = "counter", type = "integer", kind = "event" }, { name = "mode", type = "text", kind = "state" }]

        [[routes]]
        from = "mqtt.import.attic.counter"
        to = "probe.counter"

        [[routes]]
        from = "mqtt.import.attic.mode"
        to = "probe.mode"
        """)
    try attic.waitConnected()
    try bedroom.waitConnected()
    let envelopes = try broker.subscribe(["patchbay/attic/mqtt/mode"])

    func recorded(_ port: String) -> [JSONValue] {
      let text = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
      return text.split(separator: "\n").compactMap { JSONValue.parse(String($0)) }.filter {
        $0["port"] == .string(port)
      }.compactMap { $0["value"] }
    }

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
