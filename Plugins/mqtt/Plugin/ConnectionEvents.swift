import MQTTProtocol
import PatchbayPluginKit
import Synchronization

/// What the plugin does when the connection reports, on libmosquitto's loop thread: on a
/// connect it announces itself online, subscribes, asks Zigbee lights for their state,
/// publishes the Home Assistant discovery and sends what waited; on a message it decodes the
/// payload onto output ports; on a loss it marks the outbox and the `connected` port.
final class ConnectionEvents: Sendable {
  let context: PluginContext
  let router: MessageRouter
  let outbox: Outbox
  let connectedPort: OutputPort
  let statusTopic: String
  /// `online` here (not retained) marks each connect as one transition (the hub's triggers).
  let eventTopic: String
  /// `zigbee2mqtt/LIGHT/get` topics: a state report is asked for at each connect.
  let zigbeeLightGets: [String]
  let announcer: DiscoveryAnnouncer?
  /// "HOST:PORT as CLIENT-ID (MQTT VERSION)", for the log.
  let peer: String
  let maxPayloadBytes: Int
  private let warnings: RateLimitedLog
  private let duplicates = Mutex(DuplicateFilter())

  init(
    context: PluginContext, router: MessageRouter, outbox: Outbox, connectedPort: OutputPort, statusTopic: String,
    eventTopic: String,
    zigbeeLightGets: [String], announcer: DiscoveryAnnouncer?, peer: String, maxPayloadBytes: Int
  ) {
    self.context = context
    self.router = router
    self.outbox = outbox
    self.connectedPort = connectedPort
    self.statusTopic = statusTopic
    self.eventTopic = eventTopic
    self.zigbeeLightGets = zigbeeLightGets
    self.announcer = announcer
    self.peer = peer
    self.maxPayloadBytes = maxPayloadBytes
    warnings = RateLimitedLog(
      clock: { context.monotonicNanoseconds }, write: { level, message in context.log(level, message) })
  }

  /// The callbacks for `MosquittoClient`.
  var callbacks: MosquittoClient.Events {
    MosquittoClient.Events(
      connected: { [self] client in connected(client) },
      published: { [outbox] mid in outbox.acknowledged(mid) },
      disconnected: { [self] reason in disconnected(reason) },
      message: { [self] client, topic, payload, _ in received(payload, on: topic, via: client) },
      log: { [context] level, message in context.log(level, message) })
  }

  func connected(_ client: MosquittoClient) {
    context.log(.info, "connected to \(peer)")
    client.publish(topic: statusTopic, payload: Array("online".utf8), qos: 1, retain: true)
    client.publish(topic: eventTopic, payload: Array("online".utf8), qos: 1, retain: false)
    for subscription in router.subscriptions { client.subscribe(subscription.filter, qos: subscription.qos) }
    for topic in zigbeeLightGets {
      client.publish(topic: topic, payload: Array(#"{"state":""}"#.utf8), qos: 1, retain: false)
    }
    announcer?.announce(via: client)
    let sent = outbox.connected(send: client.send)
    if sent > 0 { context.log(.info, "sent \(sent) messages that waited for the connection") }
    context.publish(.bool(true), on: connectedPort)
  }

  func disconnected(_ reason: String) {
    outbox.disconnected()
    context.log(.warning, reason)
    context.publish(.bool(false), on: connectedPort)
  }

  func received(_ payload: MosquittoClient.Payload, on topic: String, via client: MosquittoClient) {
    switch payload {
    case .oversized(let size):
      warnings.warning(topic: topic, "payload of \(size) bytes is above max_payload_bytes (\(maxPayloadBytes))")
    case .bytes(let bytes):
      if let announcer, topic == announcer.discovery?.birthTopic {
        // Home Assistant (re)started: it asks for every discovery config again.
        if bytes == Array("online".utf8) { announcer.announce(via: client) }
        return
      }
      router.deliver(
        topic: topic, payload: bytes, publish: { value, port in context.publish(value, on: port) },
        warn: { warnings.warning(topic: topic, $0) },
        ignore: { context.log(.debug, "no port for '\(topic)': \($0)") },
        note: { context.log(.debug, "'\(topic)': \($0)") }, isNew: isNew)
    }
  }

  /// Whether an imported envelope is new; QoS 1 duplicates are dropped (and logged at debug).
  func isNew(_ topic: String, _ envelope: ShareEnvelope) -> Bool {
    let new = duplicates.withLock { $0.accept(topic: topic, epoch: envelope.epoch, seq: envelope.seq) }
    if !new { context.log(.debug, "dropped a duplicate on \(topic) (seq \(envelope.seq))") }
    return new
  }
}
