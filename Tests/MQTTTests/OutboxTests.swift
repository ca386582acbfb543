import Testing

@testable import MQTTPlugin

/// The outbox's order and keeping rules, with a fake `send` standing in for libmosquitto.
struct OutboxTests {
  /// Records what was sent; refuses while `up` is false; hands out message ids from 1.
  final class FakeClient {
    var up = true
    var sent: [String] = []
    var nextMid: Int32 = 0
    func send(_ message: Outbox.Message) -> Int32? {
      guard up else { return nil }
      sent.append(String(decoding: message.payload, as: UTF8.self))
      nextMid += 1
      return nextMid
    }
  }

  func event(_ text: String) -> Outbox.Message {
    Outbox.Message(topic: "events", payload: Array(text.utf8), qos: 1, retain: false, latestOnly: false)
  }

  func state(_ text: String, topic: String = "state") -> Outbox.Message {
    Outbox.Message(topic: topic, payload: Array(text.utf8), qos: 1, retain: true, latestOnly: true)
  }

  @Test func whileDisconnectedEventsQueueAndStatesKeepTheNewest() {
    let outbox = Outbox(capacity: 100)
    let client = FakeClient()
    outbox.post(event("1"), send: client.send)
    outbox.post(state("on"), send: client.send)
    outbox.post(event("2"), send: client.send)
    outbox.post(state("off"), send: client.send)
    #expect(client.sent.isEmpty, "nothing goes out before the first connect")
    #expect(outbox.connected(send: client.send) == 3)
    #expect(client.sent == ["1", "2", "off"])
    outbox.post(event("3"), send: client.send)
    #expect(client.sent == ["1", "2", "off", "3"])
  }

  /// libmosquitto keeps what it was handed and sends it again after a reconnect; the outbox
  /// sending it too delivered it twice (NetworkPartitionTests showed it): after a reconnect
  /// only what waited goes out, and the unacknowledged still count against the capacity until
  /// their acknowledgement.
  @Test func unacknowledgedMessagesAreLeftToLibmosquitto() {
    let outbox = Outbox(capacity: 4)
    let client = FakeClient()
    outbox.connected(send: client.send)
    for text in ["1", "2", "3"] { outbox.post(event(text), send: client.send) }
    outbox.acknowledged(1)
    outbox.disconnected()
    client.up = false
    outbox.post(event("4"), send: client.send)
    outbox.post(state("a"), send: client.send)
    // 2 and 3 unacknowledged, 4 and a waiting: the capacity is reached, the oldest event goes.
    #expect(outbox.post(event("5"), send: client.send) == 1)
    client.up = true
    client.sent = []
    #expect(outbox.connected(send: client.send) == 2)
    #expect(client.sent == ["a", "5"])
    outbox.acknowledged(2)
    outbox.acknowledged(3)
    outbox.disconnected()
    for text in ["6", "7"] { outbox.post(event(text), send: client.send) }
    #expect(outbox.post(event("8"), send: client.send) == 2, "a and 5, unacknowledged, count: 6 went")
    outbox.acknowledged(4)
    outbox.acknowledged(5)
    #expect(outbox.post(event("9"), send: client.send) == 2, "acknowledged, they leave room")
  }

  @Test func aFullQueueDropsTheOldestEventAndCountsIt() {
    let outbox = Outbox(capacity: 3)
    let client = FakeClient()
    for text in ["1", "2", "3", "4", "5"] { outbox.post(event(text), send: client.send) }
    #expect(outbox.post(state("s"), send: client.send) == 3)
    outbox.connected(send: client.send)
    #expect(client.sent == ["4", "5", "s"])
  }
}
