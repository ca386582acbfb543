import HomebridgeProtocol
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import struct PatchbayPluginKit.RetryBackoff

/// A websocket client of the Homebridge-websocket server that stays connected: it
/// reconnects with back-off, announces its accessories and re-sends every value on each
/// connect, answers HomeKit reads, and reports HomeKit writes.
///
/// All state lives on one event loop of its own; the public methods may be called from any
/// thread. Callbacks run on that loop and must return quickly. After `stop()` returns no
/// callback runs any more.
public final class HomebridgeClient: @unchecked Sendable {
  public typealias LogHandler = @Sendable (ClientSession.LogLevel, String) -> Void
  /// A HomeKit write, with the accessory's current values by characteristic (after the write).
  public typealias WriteHandler = @Sendable (ClientSession.HomeKitWrite, [String: JSONValue]) -> Void

  public let endpoint: WebSocketEndpoint
  private let group: MultiThreadedEventLoopGroup
  private let loop: any EventLoop
  private let log: LogHandler
  private let onHomeKitWrite: WriteHandler

  // Confined to `loop`.
  private var session: ClientSession
  private var channel: (any Channel)?
  private var backoff = RetryBackoff()
  private var reconnect: Scheduled<Void>?
  private var keepalive: RepeatedTask?
  private var connectedAt: NIODeadline?
  private var lastFrameAt = NIODeadline.now()
  private var started = false
  private var stopped = false
  private var attempts = 0

  static let upgradeTimeout = TimeAmount.seconds(10)
  static let pingInterval = TimeAmount.seconds(15)
  static let silenceLimit = TimeAmount.seconds(45)
  static let maxFrameSize = 1 << 20

  public init(
    endpoint: WebSocketEndpoint, accessories: [AccessoryDefinition], log: @escaping LogHandler,
    onHomeKitWrite: @escaping WriteHandler
  ) {
    self.endpoint = endpoint
    group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    loop = group.next()
    session = ClientSession(accessories: accessories)
    self.log = log
    self.onHomeKitWrite = onHomeKitWrite
  }

  /// Starts connecting; returns at once. Connection failures are logged and retried.
  public func start() {
    loop.execute {
      guard !self.started, !self.stopped else { return }
      self.started = true
      self.connect()
    }
  }

  /// Closes the connection and stops the loop. Must not be called from a callback.
  public func stop() {
    let closed = loop.flatSubmit { () -> EventLoopFuture<Void> in
      self.stopped = true
      self.reconnect?.cancel()
      self.keepalive?.cancel()
      guard let channel = self.channel else { return self.loop.makeSucceededVoidFuture() }
      self.channel = nil
      self.session.closed()
      return channel.close().recover { _ in }
    }
    try? closed.wait()
    try? group.syncShutdownGracefully()
  }

  /// Sets characteristics: remembered as the latest value, and sent now when connected.
  public func update(_ updates: [(ClientSession.Key, JSONValue)]) {
    loop.execute {
      guard !self.stopped else { return }
      for (key, value) in updates {
        self.perform(self.session.update(key, to: value))
      }
    }
  }

  public func update(_ key: ClientSession.Key, to value: JSONValue) { update([(key, value)]) }

  /// Whether the websocket is open right now.
  public var isConnected: Bool {
    (try? loop.submit { self.session.isOpen }.wait()) ?? false
  }

  /// The latest value of a characteristic as this client knows it.
  public func value(_ key: ClientSession.Key) -> JSONValue? {
    (try? loop.submit { self.session.value(key) }.wait()) ?? nil
  }

  // MARK: Connection (on the loop)

  private func connect() {
    guard !stopped else { return }
    attempts += 1
    let attempt = attempts
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
        self.attemptEnded(attempt, reason: "cannot connect to \(endpoint): \(error)")
      case .success(let channel):
        channel.eventLoop.scheduleTask(in: Self.upgradeTimeout) {
          if self.channel !== channel { channel.close(promise: nil) }
        }
        channel.closeFuture.whenComplete { _ in
          self.attemptEnded(attempt, reason: "connection to \(endpoint) closed")
          if self.channel === channel { self.channel = nil }
        }
      }
    }
  }

  private func configureUpgrade(_ channel: any Channel, endpoint: WebSocketEndpoint) throws {
    let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(
      maxFrameSize: Self.maxFrameSize,
      upgradePipelineHandler: { channel, _ in
        channel.eventLoop.makeCompletedFuture {
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
    upgraded.whenComplete { result in
      switch result {
      case .success(true):
        self.opened(channel)
      case .success(false):
        self.log(.warning, "\(endpoint) refused the websocket upgrade; is it homebridge-websocket?")
        channel.close(promise: nil)
      case .failure(let error):
        self.log(.warning, "websocket upgrade with \(endpoint) failed: \(error)")
        channel.close(promise: nil)
      }
    }
  }

  private func opened(_ channel: any Channel) {
    guard !stopped else {
      channel.close(promise: nil)
      return
    }
    self.channel = channel
    connectedAt = .now()
    lastFrameAt = .now()
    keepalive?.cancel()
    keepalive = loop.scheduleRepeatedTask(initialDelay: Self.pingInterval, delay: Self.pingInterval) { _ in
      self.checkAlive(channel)
    }
    log(.info, "connected to Homebridge at \(endpoint)")
    perform(session.opened())
  }

  /// Pings a quiet server and gives up on one that stopped answering (a hung Homebridge).
  private func checkAlive(_ channel: any Channel) {
    guard self.channel === channel else { return }
    if NIODeadline.now() - lastFrameAt > Self.silenceLimit {
      log(.warning, "Homebridge at \(endpoint) stopped answering; reconnecting")
      channel.close(promise: nil)
      return
    }
    let ping = WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: channel.allocator.buffer(capacity: 0))
    channel.writeAndFlush(ping, promise: nil)
  }

  /// Every attempt ends here exactly once: failed connect, refused upgrade, or a closed socket.
  private func attemptEnded(_ attempt: Int, reason: String) {
    guard attempt == attempts else { return }
    attempts += 1  // later events of this attempt are ignored
    keepalive?.cancel()
    keepalive = nil
    let wasOpen = session.isOpen
    session.closed()
    channel = nil
    guard !stopped else { return }
    if let connectedAt, NIODeadline.now() - connectedAt > .seconds(10) { backoff.reset() }
    connectedAt = nil
    let delay = backoff.next()
    log(wasOpen ? .warning : .info, "\(reason); retrying in \(String(format: "%.1f", delay)) s")
    reconnect = loop.scheduleTask(in: .milliseconds(Int64(delay * 1000))) { self.connect() }
  }

  // MARK: Frames (on the loop)

  func received(text: String, on channel: any Channel) {
    guard self.channel === channel else { return }
    lastFrameAt = .now()
    perform(session.receive(text: text))
  }

  func receivedControlFrame(on channel: any Channel) {
    if self.channel === channel { lastFrameAt = .now() }
  }

  func failed(_ error: any Error, on channel: any Channel) {
    log(.warning, "websocket error from \(endpoint): \(error)")
    channel.close(promise: nil)
  }

  private func perform(_ output: ClientSession.Output) {
    for entry in output.logs { log(entry.level, entry.message) }
    if let channel, !output.send.isEmpty {
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
      for (key, value) in session.values where key.accessory == write.key.accessory {
        values[key.characteristic] = value
      }
      onHomeKitWrite(write, values)
    }
  }
}
