import Foundation
import PatchbayTestSupport
import Testing

/// A clean stop says `offline` once: the hub publishes it, waits for the broker's PUBACK, then
/// disconnects cleanly, so the broker drops the last will (issue 45.4: disconnecting at once
/// let a keepalive close the socket first, and the broker published the will as well).
@Suite(.serialized) struct CleanDisconnectTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory("patchbay-mqtt-farewell") }

  @Test func aCleanStopSaysOfflineOnceAndTheWillNever() throws {
    let broker = try MosquittoBroker(directory: directory)
    let status = "patchbay/farewell/status"
    let event = "patchbay/farewell/event"
    let watch = try broker.subscribe([status, event, "test/marker"])
    // Several stops, the keepalive as short as it goes: each is a chance for the old race.
    for round in 1...3 {
      let hub = try MQTTHub(
        directory: directory,
        mqtt: .mqttBroker(port: broker.port, ["keepalive_s": 5, "base_topic": "patchbay/farewell"]))
      try hub.waitConnected()
      try eventually("online \(round) times; seen: \(watch.messages)") {
        watch.payloads(on: event).filter { $0 == "online" }.count == round
      }
      let status = try hub.process.terminate(within: 60)
      #expect(status == 0, "\(hub.process.output)")
      // The broker publishes a will when the connection ends, before the hub has exited: a
      // marker sent after the exit arrives after any will.
      try broker.publish("test/marker", String(round))
      try eventually("marker \(round); seen: \(watch.messages)") { watch.payloads(on: "test/marker").count == round }
    }
    let said = watch.messages.filter { $0.topic == status && !$0.retained }.map(\.payload)
    #expect(said == ["online", "offline", "online", "offline", "online", "offline"], "\(watch.messages)")
    #expect(watch.payloads(on: event) == ["online", "offline", "online", "offline", "online", "offline"])
  }

  /// A hub that vanishes (SIGKILL) says `offline` through the broker: the main connection's
  /// will on the retained status (availability), the departure watch's on the event topic,
  /// once each (the hub's "went away" trigger in Home Assistant listens there).
  @Test func aVanishedHubSaysOfflineThroughBothWills() throws {
    let broker = try MosquittoBroker(directory: directory)
    let status = "patchbay/vanish/status"
    let event = "patchbay/vanish/event"
    let watch = try broker.subscribe([status, event])
    let hub = try MQTTHub(
      directory: directory,
      mqtt: .mqttBroker(port: broker.port, ["base_topic": "patchbay/vanish"]))
    try hub.waitConnected()
    try eventually("online on the event topic; seen: \(watch.messages)") { watch.payloads(on: event) == ["online"] }
    // SIGKILL: its plugin host dies with it, no clean goodbye.
    hub.process.signal(SIGKILL)
    try eventually("both wills; seen: \(watch.messages)", within: 60) {
      watch.payloads(on: event) == ["online", "offline"] && watch.payloads(on: status) == ["online", "offline"]
    }
  }
}
