import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

/// A `#` subscription through a real broker: the topics `each` lists reach their ports, the
/// rest of what the `#` brings is ignored quietly (a debug line, no warning).
@Suite(.serialized) struct WildcardEndToEndTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-mqtt-wildcard") }

  @Test func topicsUnderAHashReachThePortsTheirEachEntryNames() throws {
    let broker = try MosquittoBroker(directory: directory)
    let hub = try MQTTHub(
      directory: directory,
      mqtt: .mqttBroker(port: broker.port).topic(
        "sensor", "number", ["subscribe": "tele/#", "each": ["kitchen/temperature", "kitchen/humidity", "hall"]]))
    try hub.waitConnected()
    #expect(hub.process.output.contains("2 subscriptions"), "one subscription for the #, one for the ping")
    let watch = try hub.watchReady(broker: broker)

    try broker.publish("tele/kitchen/temperature", "21.5")
    try broker.publish("tele/kitchen/humidity", "40")
    try broker.publish("tele/hall", "18")
    try broker.publish("tele/attic/temperature", "12")  // not listed
    try broker.publish("tele/kitchen", "1")  // a level above a listed topic
    try broker.publish("tele/kitchen/temperature", "22")
    try eventually("values on the ports each names; watch:\n\(watch.process.output)", within: 60) {
      watch.values("mqtt.sensor.kitchen.temperature").map(\.doubleValue) == [21.5, 22]
        && watch.values("mqtt.sensor.kitchen.humidity").map(\.doubleValue) == [40]
        && watch.values("mqtt.sensor.hall").map(\.doubleValue) == [18]
    }
    try hub.process.waitForLine(
      containing:
        "no port for 'tele/attic/temperature': 'attic/temperature' is not in sensor's each list (under tele/#)",
      within: 30)
    try hub.process.waitForLine(
      containing: "no port for 'tele/kitchen': 'kitchen' is not in sensor's each list", within: 30)
    // Not the warning a bad payload gets (rate-limited, but still one line per topic).
    #expect(!hub.process.output.contains("ignored a message on 'tele/attic"))
    #expect(!hub.process.output.contains("ignored a message on 'tele/kitchen'"))
    // A bad payload on a listed topic is a warning, as everywhere.
    try broker.publish("tele/hall", "warm")
    try hub.process.waitForLine(containing: "ignored a message on 'tele/hall': 'warm' is not a number", within: 30)
  }
}
