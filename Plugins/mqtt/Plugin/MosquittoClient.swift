import CMosquitto
import Dispatch
import MQTTProtocol
import PatchbayCValues
import PatchbayPluginKit
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One libmosquitto client on a thread of its own: connects, runs `mosquitto_loop`, and on a
/// lost or refused connection waits a `RetryBackoff` delay (interruptible by `stop`) and tries
/// again. Callbacks (`Events`) run on that thread; `publish` and `subscribe` may be called from
/// any thread (libmosquitto locks its own state: `mosquitto_threaded_set`).
final class MosquittoClient: Sendable {
  /// What the loop thread and `stop` share.
  private struct State {
    var stopping = false
    var finished = false
    /// stop() stopped waiting for the loop thread, which then frees the client itself.
    var abandoned = false
    var connected = false
    /// A CONNACK arrived in the current `mosquitto_loop` call; `events.connected` follows it.
    var accepted = false
    /// Used on the loop thread only (callbacks run inside `mosquitto_loop` there).
    var backoff: RetryBackoff
  }

  struct Options: Sendable {
    var host: String
    var port: Int
    var keepaliveSeconds: Int
    var clientID: String
    var cleanSession: Bool
    var protocolVersion: BrokerSettings.ProtocolVersion
    var username: String?
    var password: String?
    var tls: BrokerSettings.TLS?
    var will: (topic: String, payload: [UInt8])?
    /// The will is retained (a status) unless this says otherwise (an event).
    var willRetained = true
    var retryInitialSeconds: Double
    var retryMaxSeconds: Double
  }

  /// What the connection reports, on the loop thread.
  struct Events: Sendable {
    /// The broker accepted the connection (CONNACK 0), and libmosquitto has sent again what
    /// it still held unacknowledged: what is published now goes out after those.
    var connected: @Sendable (MosquittoClient) -> Void
    /// The broker acknowledged the QoS 1/2 message with this id (or a QoS 0 one was sent).
    var published: @Sendable (Int32) -> Void
    /// The connection ended or was refused; the reason for the log.
    var disconnected: @Sendable (String) -> Void
    /// One message: topic, payload (or its size when above `maxPayloadBytes`), retained flag.
    var message: @Sendable (MosquittoClient, String, Payload, Bool) -> Void
    var log: @Sendable (LogLevel, String) -> Void
  }

  /// What a clean stop publishes before it disconnects (QoS 1).
  struct Farewell: Sendable {
    var topic: String
    var payload: [UInt8]
    var retain: Bool
  }

  enum Payload: Sendable {
    case bytes([UInt8])
    case oversized(Int)
  }

  /// The libmosquitto client, shared by the loop thread and callers' threads: threaded
  /// libmosquitto (`mosquitto_threaded_set`) locks its own state.
  private let client: ABIPointer<OpaquePointer>
  private var handle: OpaquePointer { client.pointer }
  private let options: Options
  private let events: Events
  private let maxPayloadBytes: Int
  private let state: Mutex<State>
  /// Signalled by stop(): ends the loop thread's wait between connection attempts.
  private let wakeUp = DispatchSemaphore(value: 0)
  /// Signalled by the loop thread when it has ended.
  private let ended = DispatchSemaphore(value: 0)
  /// The message ids the broker acknowledged while stopping, and a signal for each: stop()
  /// disconnects only once its farewell has arrived.
  private let acknowledgedWhileStopping = Mutex<Set<Int32>>([])
  private let acknowledgement = DispatchSemaphore(value: 0)
  /// Calls into `events` happen under this lock, and only while allowed.
  private let eventsLock = ReentrantLock()  // a libmosquitto log line may come from inside a callback
  private let eventsAllowed = Atomic(true)

  private static let libraryReady: Bool = {
    mosquitto_lib_init()
    return true
  }()

  init(options: Options, maxPayloadBytes: Int, events: Events) throws {
    _ = Self.libraryReady
    self.options = options
    self.events = events
    self.maxPayloadBytes = maxPayloadBytes
    state = Mutex(
      State(backoff: RetryBackoff(initial: options.retryInitialSeconds, maximum: options.retryMaxSeconds)))
    guard let handle = mosquitto_new(options.clientID, options.cleanSession, nil) else {
      throw PluginError(.internal, "libmosquitto could not create a client (errno \(errno))")
    }
    client = ABIPointer(handle)
    do {
      try configure()
    } catch {
      mosquitto_destroy(handle)
      throw error
    }
  }

  private func configure() throws {
    try check(mosquitto_threaded_set(handle, true), "threaded mode")
    let version = options.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
    try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, version), "protocol version")
    if let username = options.username {
      try check(mosquitto_username_pw_set(handle, username, options.password), "username and password")
    }
    if let tls = options.tls {
      try check(
        mosquitto_tls_set(handle, tls.caFile, tls.caPath, tls.certFile, tls.keyFile, nil),
        "TLS files (ca_file, cert_file, key_file)")
      try check(mosquitto_tls_opts_set(handle, tls.verify ? 1 : 0, nil, nil), "TLS verification")
      try check(mosquitto_tls_insecure_set(handle, !tls.verify), "TLS host name check")
    }
    if let will = options.will {
      try check(
        will.payload.withUnsafeBytes {
          mosquitto_will_set(handle, will.topic, Int32($0.count), $0.baseAddress, 1, options.willRetained)
        },
        "last will")
    }
    mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
    mosquitto_connect_callback_set(handle) { _, user, code in
      guard let user else { return }
      Unmanaged<MosquittoClient>.fromOpaque(user).takeUnretainedValue().didConnect(code)
    }
    mosquitto_disconnect_callback_set(handle) { _, user, code in
      guard let user else { return }
      Unmanaged<MosquittoClient>.fromOpaque(user).takeUnretainedValue().didDisconnect(code)
    }
    // libmosquitto's own errors and warnings (the OpenSSL reason of a TLS failure, say).
    mosquitto_log_callback_set(handle) { _, user, level, text in
      guard let user, let text, level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0 else { return }
      let client = Unmanaged<MosquittoClient>.fromOpaque(user).takeUnretainedValue()
      let line = "libmosquitto: \(String(cString: text))"
      client.event { client.events.log(.warning, line) }
    }
    mosquitto_publish_callback_set(handle) { _, user, mid in
      guard let user else { return }
      let client = Unmanaged<MosquittoClient>.fromOpaque(user).takeUnretainedValue()
      client.didPublish(mid)
      client.event { client.events.published(mid) }
    }
    mosquitto_message_callback_set(handle) { _, user, message in
      guard let user, let message else { return }
      Unmanaged<MosquittoClient>.fromOpaque(user).takeUnretainedValue().didReceive(message.pointee)
    }
  }

  private func check(_ code: Int32, _ what: String) throws {
    guard code == MOSQ_ERR_SUCCESS.rawValue else {
      throw PluginError(
        .invalidConfig, "libmosquitto refused the \(what): \(String(cString: mosquitto_strerror(code)))")
    }
  }

  // MARK: Any thread

  /// Starts the loop thread.
  func start() throws(PluginError) {
    try PluginThread.start(name: "mqtt-loop") { [self] in run() }
  }

  var connected: Bool { state.withLock { $0.connected } }

  /// Queues one message; false when libmosquitto refused it (not connected, too large).
  @discardableResult
  func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) -> Int32 {
    payload.withUnsafeBytes { bytes in
      mosquitto_publish(handle, nil, topic, Int32(bytes.count), bytes.baseAddress, qos, retain)
    }
  }

  /// Publishes an outbox message; its message id when libmosquitto took it.
  func send(_ message: Outbox.Message) -> Int32? {
    var mid: Int32 = 0
    let code = message.payload.withUnsafeBytes { bytes in
      mosquitto_publish(
        handle, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, message.qos, message.retain)
    }
    return code == MOSQ_ERR_SUCCESS.rawValue ? mid : nil
  }

  @discardableResult
  func subscribe(_ filter: String, qos: Int32) -> Int32 {
    mosquitto_subscribe(handle, nil, filter, qos)
  }

  /// Publishes `farewell` (if connected) and waits for the broker's acknowledgements, then
  /// disconnects cleanly, ends the loop thread and frees the client. Disconnecting before the
  /// acknowledgement let a keepalive close the socket first, and the broker then published the
  /// last will too (a second `offline`). Waits for the thread up to `patience`: a connect to a
  /// host that does not answer blocks in the kernel until its TCP timeout. Then the thread is
  /// left to end by itself (it frees the client) and never calls `events` again.
  func stop(farewell: [Farewell], patience: Double = 3) {
    let wasConnected = state.withLock { state in
      state.stopping = true
      return state.connected
    }
    wakeUp.signal()
    if wasConnected {
      var sent: Set<Int32> = []
      for message in farewell {
        var mid: Int32 = 0
        let code = message.payload.withUnsafeBytes { bytes in
          mosquitto_publish(handle, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, 1, message.retain)
        }
        if code == MOSQ_ERR_SUCCESS.rawValue { sent.insert(mid) }
      }
      let deadline = DispatchTime.now() + patience
      while !sent.isSubset(of: acknowledgedWhileStopping.withLock({ $0 })) {
        if acknowledgement.wait(timeout: deadline) == .timedOut { break }
      }
    }
    mosquitto_disconnect(handle)
    _ = ended.wait(timeout: .now() + patience)
    // Decided under the lock the loop thread's end takes too: exactly one side frees the client.
    let threadEnded = state.withLock { state in
      if !state.finished { state.abandoned = true }
      return state.finished
    }
    if threadEnded {
      mosquitto_destroy(handle)
    } else {
      // After this, no callback reaches the plugin (it must not publish or log after stop()).
      eventsLock.withLock { eventsAllowed.store(false, ordering: .relaxed) }
    }
  }

  /// Runs `body` (a call into `events`) unless stop() has given up on this thread.
  private func event(_ body: () -> Void) {
    eventsLock.withLock { if eventsAllowed.load(ordering: .relaxed) { body() } }
  }

  static func describe(_ code: Int32) -> String {
    // libmosquitto 2.0 has no text for this one ("Unknown error.").
    if code == MOSQ_ERR_KEEPALIVE.rawValue { return "no answer within the keepalive" }
    return String(cString: mosquitto_strerror(code))
  }

  // MARK: The loop thread

  private var isStopping: Bool { state.withLock { $0.stopping } }

  private func run() {
    while !isStopping {
      var code = connect()
      if code == MOSQ_ERR_SUCCESS.rawValue {
        // stop() may have called mosquitto_disconnect while the connect was under way.
        if isStopping { mosquitto_disconnect(handle) }
        // Until the connection ends: mosquitto_disconnect (from stop) also ends it.
        repeat {
          code = mosquitto_loop(handle, 1000, 1)
          announceAcceptedConnection()
        } while code == MOSQ_ERR_SUCCESS.rawValue
      }
      let reason = code == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : Self.describe(code)
      setConnected(false)
      if isStopping { break }
      let delay = state.withLock { $0.backoff.next() }
      event {
        events.disconnected(
          "broker \(options.host):\(options.port) not reachable (\(reason)); next try in \(RetryBackoff.describe(delay))"
        )
      }
      // Until the delay has passed or stop() signals (a signal given earlier is kept).
      _ = wakeUp.wait(timeout: .now() + delay)
    }
    let leftAlone = state.withLock { state in
      state.finished = true
      return state.abandoned
    }
    ended.signal()
    if leftAlone { mosquitto_destroy(handle) }
  }

  /// A blocking connect on this thread. MQTT 5 ends a session at disconnect unless CONNECT
  /// asks for an expiry: a persistent session asks for a week.
  private func connect() -> Int32 {
    guard options.protocolVersion == .v5 && !options.cleanSession else {
      return mosquitto_connect(handle, options.host, Int32(options.port), Int32(options.keepaliveSeconds))
    }
    var properties: OpaquePointer? = nil
    defer { mosquitto_property_free_all(&properties) }
    let added = mosquitto_property_add_int32(
      &properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), 7 * 24 * 3600)
    guard added == MOSQ_ERR_SUCCESS.rawValue else { return added }
    return mosquitto_connect_bind_v5(
      handle, options.host, Int32(options.port), Int32(options.keepaliveSeconds), nil, properties)
  }

  private func setConnected(_ value: Bool) { state.withLock { $0.connected = value } }

  private func didConnect(_ code: Int32) {
    guard code == 0 else {
      event {
        events.log(.warning, "the broker refused the connection: \(String(cString: mosquitto_connack_string(code)))")
      }
      return
    }
    state.withLock { state in
      state.backoff.reset()
      state.connected = true
      state.accepted = true
    }
  }

  /// Reports a connection the broker accepted once the `mosquitto_loop` call that read the
  /// CONNACK has returned. In that call, after the connect callback, libmosquitto sends again
  /// the QoS 1/2 messages it holds unacknowledged from the last connection; the plugin's own
  /// messages (the outbox) must follow them, or an event could overtake an older one.
  private func announceAcceptedConnection() {
    let accepted = state.withLock { state in
      defer { state.accepted = false }
      return state.accepted && state.connected
    }
    if accepted { event { events.connected(self) } }
  }

  /// Any message's acknowledgement; while stopping, stop() waits for its farewell's.
  private func didPublish(_ mid: Int32) {
    guard isStopping else { return }
    acknowledgedWhileStopping.withLock { _ = $0.insert(mid) }
    acknowledgement.signal()
  }

  private func didDisconnect(_ code: Int32) {
    setConnected(false)
  }

  private func didReceive(_ message: mosquitto_message) {
    guard let topic = message.topic.map({ String(cString: $0) }) else { return }
    let length = Int(message.payloadlen)
    if length > maxPayloadBytes {
      event { events.message(self, topic, .oversized(length), message.retain) }
      return
    }
    var bytes: [UInt8] = []
    if let payload = message.payload, length > 0 {
      bytes = Array(UnsafeRawBufferPointer(start: payload, count: length))
    }
    event { events.message(self, topic, .bytes(bytes), message.retain) }
  }
}
