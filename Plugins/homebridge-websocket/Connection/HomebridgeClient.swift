import HomebridgeProtocol
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import PatchbayValues

import enum PatchbayPluginKit.AtomicFile
import struct PatchbayPluginKit.RetryBackoff

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A websocket client of the Homebridge-websocket server that stays connected: it
/// reconnects with back-off, announces its accessories (removing those it added earlier and
/// the config no longer has) and re-sends every value on each connect, answers HomeKit
/// reads, reports HomeKit writes, and notices when another client has taken the server's
/// traffic.
///
/// All state lives on one event loop of its own (`state`, checked there); the public methods
/// may be called from any thread. Callbacks run on that loop and must return quickly. After
/// `stop()` returns no callback runs any more.
public final class HomebridgeClient: Sendable {
  public typealias LogHandler = @Sendable (ClientSession.LogLevel, String) -> Void
  /// A HomeKit write, with the accessory's current values by characteristic (after the write).
  public typealias WriteHandler = @Sendable (ClientSession.HomeKitWrite, [String: JSONValue]) -> Void
  /// How the client reaches Homebridge changed.
  public typealias ConnectionHandler = @Sendable (PeerState) -> Void

  /// How the client reaches Homebridge, as `patchbay status` shows it in PEER.
  public enum PeerState: String, Sendable {
    /// The websocket is open and the server's traffic (HomeKit's writes and reads) comes here.
    case connected
    case disconnected
    /// The websocket is open, but another client has taken the server's traffic: HomeKit's
    /// writes go there until this client reconnects to take them back.
    case takenOver = "taken over"

    /// Whether HomeKit's writes reach this client.
    public var isConnected: Bool { self == .connected }
  }

  /// How long the client waits for what; the defaults suit a real Homebridge, tests shorten them.
  public struct Timing: Sendable {
    public var backoff = RetryBackoff()
    /// A server that accepts TCP but does not finish the websocket upgrade in this time is dropped.
    public var upgradeTimeout = TimeAmount.seconds(10)
    public var pingInterval = TimeAmount.seconds(15)
    /// A server silent for this long (no pong, no frame) is dropped.
    public var silenceLimit = TimeAmount.seconds(45)
    /// How often the client checks that the server's traffic still comes to it.
    public var trafficProbeInterval = TimeAmount.seconds(15)
    /// After another client took the traffic, how long before reconnecting to take it back.
    public var reclaimDelay = TimeAmount.seconds(60)
    /// While the server is away, at most one summary line per this interval.
    public var outageSummaryInterval = Duration.seconds(60)
    public init() {}
  }

  public let endpoint: WebSocketEndpoint
  private let group: MultiThreadedEventLoopGroup
  private let loop: any EventLoop
  private let log: LogHandler
  private let onHomeKitWrite: WriteHandler
  private let onConnectionChange: ConnectionHandler
  private let timing: Timing
  /// Where `session.added` is kept across restarts; nil keeps it in memory only.
  private let stateFile: String?
  /// Where `session.known` is kept across restarts; nil keeps it in memory only.
  private let knownValuesFile: String?

  /// Everything that changes, owned by `loop`: only code running there reaches it.
  private let state: NIOLoopBoundBox<State>

  private struct State {
    var session: ClientSession
    var channel: (any Channel)?
    var backoff: RetryBackoff
    var outageLog: ReconnectLogPolicy
    var reconnect: Scheduled<Void>?
    var keepalive: RepeatedTask?
    var trafficCheck: RepeatedTask?
    var connectedAt: NIODeadline?
    var lastFrameAt = NIODeadline.now()
    /// When the traffic probe now outstanding was sent (with a ping: a live server answers that).
    var probeSentAt: NIODeadline?
    var started = false
    var stopped = false
    var attempts = 0
    /// Why the current attempt ends, when known before its socket closes (a failed upgrade, a reclaim).
    var endReason: String?
    /// `session.known` changed and a save is scheduled (one per moment, not one per value).
    var knownSave: Scheduled<Void>?
  }

  static let maxFrameSize = 1 << 20
  public static let stateFileName = "added-accessories.json"
  public static let knownValuesFileName = "known-values.json"
  /// How long a change of `session.known` may wait to be saved: a slider's stream of values
  /// costs one write, and a crash loses at most this much (the hub then replays its value).
  static let knownSaveDelay = TimeAmount.milliseconds(300)

  public init(
    endpoint: WebSocketEndpoint, accessories: [AccessoryDefinition], stateFile: String? = nil,
    knownValuesFile: String? = nil, timing: Timing = Timing(), log: @escaping LogHandler,
    onHomeKitWrite: @escaping WriteHandler,
    onConnectionChange: @escaping ConnectionHandler = { _ in }
  ) {
    self.endpoint = endpoint
    group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    loop = group.next()
    self.stateFile = stateFile
    self.knownValuesFile = knownValuesFile
    self.timing = timing
    var warnings: [String] = []
    var added = AddedAccessories()
    if let stateFile { AtomicFile.removeLeftovers(of: stateFile) }
    if let stateFile, FileManager.default.fileExists(atPath: stateFile) {
      if let text = try? String(contentsOfFile: stateFile, encoding: .utf8),
        let record = AddedAccessories(jsonText: text)
      {
        added = record
      } else {
        warnings.append(
          "\(stateFile) is unreadable; accessories added earlier and no longer configured stay in Homebridge")
      }
    }
    var known = KnownValues()
    if let knownValuesFile { AtomicFile.removeLeftovers(of: knownValuesFile) }
    if let knownValuesFile, FileManager.default.fileExists(atPath: knownValuesFile) {
      if let text = try? String(contentsOfFile: knownValuesFile, encoding: .utf8),
        let record = KnownValues(jsonText: text)
      {
        known = record
      } else {
        warnings.append(
          "\(knownValuesFile) is unreadable; starting without the values Homebridge had (HomeKit's writes made "
            + "while the plugin was away may be undone, and a restarted Homebridge is not refilled)")
      }
    }
    state = NIOLoopBoundBox.makeBoxSendingValue(
      State(
        session: ClientSession(accessories: accessories, added: added, known: known), backoff: timing.backoff,
        outageLog: ReconnectLogPolicy(endpoint: endpoint.description, summaryInterval: timing.outageSummaryInterval)),
      eventLoop: loop)
    self.log = log
    self.onHomeKitWrite = onHomeKitWrite
    self.onConnectionChange = onConnectionChange
    for warning in warnings { log(.warning, warning) }
  }

  /// Starts connecting; returns at once. Connection failures are logged and retried.
  public func start() {
    loop.execute {
      guard !self.state.value.started, !self.state.value.stopped else { return }
      self.state.value.started = true
      self.onConnectionChange(.disconnected)
      self.connect()
    }
  }

  /// Closes the connection and stops the loop. Must not be called from a callback.
  public func stop() {
    let closed = loop.flatSubmit { () -> EventLoopFuture<Void> in
      self.state.value.stopped = true
      self.state.value.reconnect?.cancel()
      self.state.value.keepalive?.cancel()
      self.state.value.trafficCheck?.cancel()
      if let save = self.state.value.knownSave {
        save.cancel()
        self.saveKnown()
      }
      guard let channel = self.state.value.channel else { return self.loop.makeSucceededVoidFuture() }
      self.state.value.channel = nil
      self.state.value.session.closed()
      return channel.close().recover { _ in }
    }
    try? closed.wait()
    try? group.syncShutdownGracefully()
  }

  /// Sets characteristics: remembered as the latest value, and sent now when connected.
  public func update(_ updates: [(ClientSession.Key, JSONValue)]) {
    loop.execute {
      guard !self.state.value.stopped else { return }
      for (key, value) in updates {
        self.perform(self.state.value.session.update(key, to: value))
      }
    }
  }

  public func update(_ key: ClientSession.Key, to value: JSONValue) { update([(key, value)]) }

  /// Whether the websocket is open right now.
  public var isConnected: Bool {
    (try? loop.submit { self.state.value.session.isOpen }.wait()) ?? false
  }

  /// The latest value of a characteristic as this client knows it.
  public func value(_ key: ClientSession.Key) -> JSONValue? {
    (try? loop.submit { self.state.value.session.value(key) }.wait()) ?? nil
  }

  // MARK: Connection (on the loop)

  private func connect() {
    guard !state.value.stopped else { return }
    state.value.attempts += 1
    state.value.endReason = nil
    let attempt = state.value.attempts
    let endpoint = self.endpoint
    let bootstrap = ClientBootstrap(group: loop)
      .connectTimeout(.seconds(5))
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try self.configureUpgrade(channel, endpoint: endpoint)
        }
      }
    bootstrap.connect(host: endpoint.host, port: endpoint.port).whenComplete { result in
      switch result {
      case .failure(let error):
        self.attemptEnded(attempt, reason: "cannot connect to \(endpoint): \(ConnectFailure.describe(error))")
      case .success(let channel):
        channel.eventLoop.scheduleTask(in: self.timing.upgradeTimeout) {
          if self.state.value.channel !== channel, channel.isActive {
            self.state.value.endReason = "\(endpoint) did not finish the websocket upgrade in time"
            channel.close(promise: nil)
          }
        }
        channel.closeFuture.whenComplete { _ in
          let reason = attempt == self.state.value.attempts ? self.state.value.endReason : nil
          self.attemptEnded(attempt, reason: reason ?? "connection to \(endpoint) closed")
          if self.state.value.channel === channel { self.state.value.channel = nil }
        }
      }
    }
  }

  private func configureUpgrade(_ channel: any Channel, endpoint: WebSocketEndpoint) throws {
    let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(
      maxFrameSize: Self.maxFrameSize,
      upgradePipelineHandler: { channel, _ in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(WebSocketClientHandler.aggregator())
          try channel.pipeline.syncOperations.addHandler(WebSocketClientHandler(client: self))
          return true
        }
      })
    var headers = HTTPHeaders()
    headers.add(name: "Host", value: "\(endpoint.host):\(endpoint.port)")
    headers.add(name: "Content-Length", value: "0")
    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: endpoint.path, headers: headers)
    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Bool>(
      upgradeRequestHead: head, upgraders: [upgrader],
      notUpgradingCompletionHandler: { channel in channel.eventLoop.makeCompletedFuture { false } })
    let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
      configuration: .init(upgradeConfiguration: configuration))
    // The attempt's one log line comes from `attemptEnded`; here only the reason is noted. A
    // channel that goes away before the upgrade (refused connect, closed socket) also fails
    // this future, with "inappropriate operation for state": a consequence, not a cause.
    upgraded.whenComplete { result in
      switch result {
      case .success(true):
        self.opened(channel)
      case .success(false):
        if channel.isActive {
          self.state.value.endReason = "\(endpoint) refused the websocket upgrade; is it homebridge-websocket?"
        }
        channel.close(promise: nil)
      case .failure(let error):
        if channel.isActive, self.state.value.endReason == nil {
          self.state.value.endReason = "websocket upgrade with \(endpoint) failed: \(error)"
        }
        channel.close(promise: nil)
      }
    }
  }

  private func opened(_ channel: any Channel) {
    guard !state.value.stopped else {
      channel.close(promise: nil)
      return
    }
    state.value.channel = channel
    state.value.connectedAt = .now()
    state.value.lastFrameAt = .now()
    state.value.keepalive?.cancel()
    state.value.keepalive = loop.scheduleRepeatedTask(initialDelay: timing.pingInterval, delay: timing.pingInterval) {
      _ in
      self.checkAlive(channel)
    }
    state.value.trafficCheck?.cancel()
    state.value.trafficCheck = loop.scheduleRepeatedTask(
      initialDelay: timing.trafficProbeInterval, delay: timing.trafficProbeInterval
    ) { _ in self.checkTraffic(channel) }
    let line = state.value.outageLog.connected(at: .now)
    log(line.level, line.message)
    state.value.probeSentAt = nil
    onConnectionChange(.connected)
    perform(state.value.session.opened())
  }

  /// The server sends HomeKit's writes and reads only to its newest client, and a websocket
  /// ping cannot tell (every socket answers its own). An unanswered `get` can: when another
  /// client took the traffic, warn, and later reconnect to take it back (if that client has
  /// gone, the server is writing into its closed socket and nobody else will fix it). A ping
  /// goes with each probe: a server that answered neither is hung, not taken over.
  private func checkTraffic(_ channel: any Channel) {
    guard self.state.value.channel === channel else { return }
    if let probe = state.value.session.probeTraffic() {
      perform(probe)
      if !probe.send.isEmpty {
        state.value.probeSentAt = .now()
        ping(channel)
      }
      return
    }
    state.value.trafficCheck?.cancel()
    state.value.trafficCheck = nil
    if let sentAt = state.value.probeSentAt, state.value.lastFrameAt < sentAt {
      let silent = (NIODeadline.now() - sentAt).nanoseconds / 1_000_000_000
      state.value.endReason = "no answer to a traffic probe or a ping in \(silent) s: the server is hung"
      channel.close(promise: nil)
      return
    }
    onConnectionChange(.takenOver)
    let delay = timing.reclaimDelay
    log(
      .warning,
      "another client has connected to Homebridge at \(endpoint): the server now sends HomeKit's writes and "
        + "reads only to it, so they no longer reach patchbay (patchbay's values still reach HomeKit); "
        + "reconnecting in \(delay.nanoseconds / 1_000_000_000) s to take them back")
    loop.scheduleTask(in: delay) {
      guard self.state.value.channel === channel else { return }
      self.state.value.endReason = "closed to take Homebridge's traffic back from another client"
      channel.close(promise: nil)
    }
  }

  /// Pings a quiet server and gives up on one that stopped answering (a hung Homebridge).
  private func checkAlive(_ channel: any Channel) {
    guard self.state.value.channel === channel else { return }
    if NIODeadline.now() - state.value.lastFrameAt > timing.silenceLimit {
      state.value.endReason =
        "nothing received in \(timing.silenceLimit.nanoseconds / 1_000_000_000) s: the server stopped answering"
      channel.close(promise: nil)
      return
    }
    ping(channel)
  }

  private func ping(_ channel: any Channel) {
    let ping = WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: channel.allocator.buffer(capacity: 0))
    channel.writeAndFlush(ping, promise: nil)
  }

  /// Every attempt ends here exactly once: failed connect, refused upgrade, or a closed socket.
  private func attemptEnded(_ attempt: Int, reason: String) {
    guard attempt == state.value.attempts else { return }
    state.value.attempts += 1  // later events of this attempt are ignored
    state.value.keepalive?.cancel()
    state.value.keepalive = nil
    state.value.trafficCheck?.cancel()
    state.value.trafficCheck = nil
    let wasOpen = state.value.session.isOpen
    state.value.session.closed()
    state.value.channel = nil
    guard !state.value.stopped else { return }
    if wasOpen { onConnectionChange(.disconnected) }
    if let connectedAt = state.value.connectedAt, NIODeadline.now() - connectedAt > .seconds(10) {
      state.value.backoff.reset()
    }
    state.value.connectedAt = nil
    let delay = state.value.backoff.next()
    let line =
      wasOpen
      ? state.value.outageLog.connectionLost(at: .now, reason: reason, retryIn: delay)
      : state.value.outageLog.attemptFailed(at: .now, reason: reason, retryIn: delay)
    if let line { log(line.level, line.message) }
    state.value.reconnect = loop.scheduleTask(in: .milliseconds(Int64(delay * 1000))) { self.connect() }
  }

  // MARK: Frames (on the loop)

  func received(text: String, on channel: any Channel) {
    guard self.state.value.channel === channel else { return }
    state.value.lastFrameAt = .now()
    perform(state.value.session.receive(text: text))
  }

  func receivedControlFrame(on channel: any Channel) {
    if self.state.value.channel === channel { state.value.lastFrameAt = .now() }
  }

  func failed(_ error: any Error, on channel: any Channel) {
    log(.warning, "websocket error from \(endpoint): \(error)")
    channel.close(promise: nil)
  }

  private func perform(_ output: ClientSession.Output) {
    for entry in output.logs { log(entry.level, entry.message) }
    if output.addedChanged { saveAdded() }
    if output.knownChanged, knownValuesFile != nil, state.value.knownSave == nil {
      state.value.knownSave = loop.scheduleTask(in: Self.knownSaveDelay) { self.saveKnown() }
    }
    if let channel = state.value.channel, !output.send.isEmpty {
      for message in output.send {
        let text = message.text
        var buffer = channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        channel.write(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: buffer), promise: nil)
      }
      channel.flush()
    }
    for write in output.homeKitWrites {
      var values: [String: JSONValue] = [:]
      for (key, value) in state.value.session.values where key.accessory == write.key.accessory {
        values[key.characteristic] = value
      }
      onHomeKitWrite(write, values)
    }
  }

  private func saveKnown() {
    state.value.knownSave = nil
    guard let knownValuesFile else { return }
    do {
      try AtomicFile.write(state.value.session.known.jsonText, to: knownValuesFile)
    } catch {
      log(.warning, "cannot save \(knownValuesFile): \(error)")
    }
  }

  /// With the kit's `AtomicFile`, so a crash never leaves half a record.
  private func saveAdded() {
    guard let stateFile else { return }
    do {
      try AtomicFile.write(state.value.session.added.jsonText, to: stateFile)
    } catch {
      log(.warning, "cannot save \(stateFile): \(error)")
    }
  }
}
