import FlicProtocol
import NIOCore
import NIOPosix
import PatchbayPluginKit

/// A self-healing client of flicd: connects with back-off while flicd is absent, opens a
/// connection channel and a battery listener per configured button, keeps the link alive with
/// pings, and after any loss reconnects and re-creates everything. Reports through `Events`.
/// All state lives on one event loop (`state`, checked there); no method blocks the caller
/// except `stop()`.
final class FlicdConnection: Sendable {
  /// What the connection reports; called on its event loop. Button indexes follow the config.
  struct Events: Sendable {
    var button: @Sendable (_ index: Int, ButtonEvent) -> Void
    var connected: @Sendable (_ index: Int, Bool) -> Void
    var battery: @Sendable (_ index: Int, _ percent: Int) -> Void
    /// The link to flicd itself: "connected", or "disconnected" while it is being retried.
    var peer: @Sendable (String) -> Void
    var log: @Sendable (LogLevel, String) -> Void
  }

  let config: FlicConfig
  let events: Events
  let translator: PressTranslator
  private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  private let loop: EventLoop

  /// Everything that changes, owned by `loop`: only code running there reaches it.
  private let state: NIOLoopBoundBox<State>

  private struct State {
    var channel: Channel?
    /// Bumped on every connect attempt so late callbacks of an old socket are ignored.
    var generation = 0
    var backoff = RetryBackoff()
    var failuresInARow = 0
    var stopped = false
    var reconnectTask: Scheduled<Void>?
    var pingTask: Scheduled<Void>?
    var pingDeadline: Scheduled<Void>?
    var nextPingID: UInt32 = 1
    var outstandingPing: UInt32?
    /// Whether flicd said something sensible on this link; only then is the back-off reset, so
    /// a peer that accepts and then fails at once is retried ever more slowly.
    var linkProvedHealthy = false
    var linked: [Bool?]
  }

  init(config: FlicConfig, events: Events) {
    self.config = config
    self.events = events
    translator = PressTranslator(
      clickEvents: config.clickEvents, exposeUpDown: config.exposeUpDown,
      maxQueuedAgeSeconds: config.maxQueuedAgeSeconds)
    loop = group.next()
    state = NIOLoopBoundBox.makeBoxSendingValue(
      State(linked: Array(repeating: nil, count: config.buttons.count)), eventLoop: loop)
  }

  /// Starts connecting; returns at once.
  func start() {
    loop.execute { [self] in
      for index in config.buttons.indices { setLinked(index, false) }
      connect()
    }
  }

  /// Closes the link and stops every timer; after return no event is reported.
  func stop() {
    try? loop.submit { [self] in
      state.value.stopped = true
      state.value.reconnectTask?.cancel()
      cancelPing()
      state.value.channel?.close(promise: nil)
      state.value.channel = nil
    }.wait()
    try? group.syncShutdownGracefully()
  }

  private var endpoint: String { "\(config.host):\(config.port)" }

  // MARK: Connecting

  private func connect() {
    guard !state.value.stopped else { return }
    state.value.generation += 1
    let attempt = state.value.generation
    ClientBootstrap(group: loop)
      .connectTimeout(.seconds(5))
      .channelOption(.tcpOption(.tcp_nodelay), value: 1)
      .channelInitializer { [self] channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(FlicdClientHandler(connection: self, generation: attempt))
        }
      }
      .connect(host: config.host, port: config.port)
      .hop(to: loop)
      .whenComplete { [self] result in
        switch result {
        case .success(let channel):
          guard !state.value.stopped, attempt == state.value.generation else {
            channel.close(promise: nil)
            return
          }
          guard channel.isActive else {
            // Accepted and closed before we got here: no close event will follow.
            scheduleReconnect(because: "flicd at \(endpoint) closed the connection at once")
            return
          }
          state.value.channel = channel
          linkEstablished()
        case .failure(let error):
          guard attempt == state.value.generation else { return }
          scheduleReconnect(because: "cannot connect to flicd at \(endpoint): \(error)")
        }
      }
  }

  private func scheduleReconnect(because reason: String) {
    guard !state.value.stopped else { return }
    events.peer("disconnected")
    state.value.failuresInARow += 1
    let delay = state.value.backoff.next()
    // Say it loudly once, then quietly: flicd may be away for hours.
    let level: LogLevel = state.value.failuresInARow == 1 || state.value.failuresInARow % 20 == 0 ? .warning : .debug
    events.log(
      level, "\(reason); retrying in \(RetryBackoff.describe(delay)) (attempt \(state.value.failuresInARow))")
    state.value.reconnectTask?.cancel()
    state.value.reconnectTask = loop.scheduleTask(in: .milliseconds(Int64(delay * 1000))) { [self] in connect() }
  }

  private func linkEstablished() {
    let failures = state.value.failuresInARow
    events.log(
      .info, "connected to flicd at \(endpoint)\(failures > 0 ? " after \(failures) failed attempts" : "")")
    state.value.failuresInARow = 0
    state.value.linkProvedHealthy = false
    events.peer("connected")
    send(.getInfo)
    for index in config.buttons.indices { openChannel(index) }
    schedulePing()
  }

  private func openChannel(_ index: Int) {
    let button = config.buttons[index]
    let id = UInt32(index + 1)
    send(
      .createConnectionChannel(
        connectionID: id, address: button.address, latencyMode: button.latencyMode,
        autoDisconnectTime: button.autoDisconnectSeconds))
    send(.createBatteryStatusListener(listenerID: id, address: button.address))
  }

  /// Called by the handler when its socket closed.
  func linkLost(generation lostGeneration: Int, reason: String) {
    guard lostGeneration == state.value.generation, state.value.channel != nil else { return }
    state.value.channel = nil
    cancelPing()
    for index in config.buttons.indices { setLinked(index, false) }
    if !state.value.stopped {
      scheduleReconnect(because: "lost flicd at \(endpoint): \(reason)")
    }
  }

  /// Drops the socket (which then reports `linkLost` and reconnects).
  private func dropLink(_ message: String) {
    events.log(.error, message)
    guard let channel = state.value.channel else { return }
    channel.close(promise: nil)
    // A socket that was already closed reports nothing more; handle the loss here.
    if !channel.isActive { linkLost(generation: state.value.generation, reason: "dropped") }
  }

  private func send(_ command: CommandPacket) {
    state.value.channel?.writeAndFlush(ByteBuffer(bytes: command.encoded()), promise: nil)
  }

  // MARK: Keepalive

  private func schedulePing() {
    state.value.pingTask = loop.scheduleTask(in: .milliseconds(Int64(config.pingIntervalSeconds * 1000))) { [self] in
      guard state.value.channel != nil else { return }
      let id = state.value.nextPingID
      state.value.nextPingID &+= 1
      state.value.outstandingPing = id
      send(.ping(pingID: id))
      state.value.pingDeadline = loop.scheduleTask(in: .milliseconds(Int64(config.pingTimeoutSeconds * 1000))) {
        [self] in
        dropLink("flicd did not answer ping \(id) within \(config.pingTimeoutSeconds) s; reconnecting")
      }
    }
  }

  private func cancelPing() {
    state.value.pingTask?.cancel()
    state.value.pingDeadline?.cancel()
    state.value.pingTask = nil
    state.value.pingDeadline = nil
    state.value.outstandingPing = nil
  }

  // MARK: Events from flicd

  func received(_ event: EventPacket, generation eventGeneration: Int) {
    guard eventGeneration == state.value.generation, !state.value.stopped else { return }
    if !state.value.linkProvedHealthy, !event.isUnknown {
      state.value.linkProvedHealthy = true
      state.value.backoff.reset()
    }
    switch event {
    case .pingResponse(let id):
      // Only the answer to our outstanding ping restarts the cycle.
      guard id == state.value.outstandingPing else { return }
      state.value.outstandingPing = nil
      state.value.pingDeadline?.cancel()
      state.value.pingDeadline = nil
      schedulePing()

    case .getInfoResponse(let info):
      for button in config.buttons where !info.verifiedButtons.contains(button.address) {
        events.log(
          .warning,
          "button \(button.name) (\(button.address)) is not paired with flicd; pair it with `patchbay flic scan`")
      }

    case .createConnectionChannelResponse(let id, let error, let status):
      guard let index = buttonIndex(id) else { return }
      if error == .maxPendingConnectionsReached {
        events.log(
          .warning,
          "flicd refused a channel to \(config.buttons[index].name): too many pending connections; retrying in 5 s")
        reopenLater(index)
      } else {
        setLinked(index, status != .disconnected)
      }

    case .connectionStatusChanged(let id, let status, let reason):
      guard let index = buttonIndex(id) else { return }
      if status == .disconnected {
        events.log(.info, "button \(config.buttons[index].name) disconnected (\(reason))")
      }
      setLinked(index, status != .disconnected)

    case .connectionChannelRemoved(let id, let reason):
      guard let index = buttonIndex(id) else { return }
      setLinked(index, false)
      events.log(.warning, "flicd removed the channel to \(config.buttons[index].name) (\(reason)); re-creating in 5 s")
      reopenLater(index)

    case .buttonUpOrDown(let press), .buttonClickOrHold(let press), .buttonSingleOrDoubleClick(let press),
      .buttonSingleOrDoubleClickOrHold(let press):
      guard let index = buttonIndex(press.connectionID) else { return }
      switch translator.translate(event) {
      case .publish(let value): events.button(index, value)
      case .dropStale(let action, let age):
        events.log(
          .info,
          "dropped a queued \(action.configName) of \(config.buttons[index].name): \(age) s old, "
            + "older than max_queued_age_s = \(config.maxQueuedAgeSeconds)")
      case .ignore: break
      }

    case .batteryStatus(let id, let percent, _):
      guard let index = buttonIndex(id), percent >= 0 else { return }
      events.battery(index, Int(percent))

    case .buttonDeleted(let address, _):
      if let button = config.buttons.first(where: { $0.address == address }) {
        events.log(.warning, "button \(button.name) (\(address)) was deleted from flicd")
      }

    case .bluetoothControllerStateChange(let state):
      events.log(state == .attached ? .info : .warning, "flicd's Bluetooth controller is \(state)")

    case .unknown(let opcode, _):
      events.log(.debug, "ignored an event with unknown opcode \(opcode)")

    case .advertisement, .newVerifiedButton, .noSpaceForNewConnection, .gotSpaceForNewConnection,
      .getButtonInfoResponse, .scanWizardFoundPrivateButton, .scanWizardFoundPublicButton, .scanWizardButtonConnected,
      .scanWizardCompleted:
      break
    }
  }

  /// A packet that breaks the protocol: the stream cannot be trusted any more.
  func receivedMalformed(_ error: FlicProtocolError, generation eventGeneration: Int) {
    guard eventGeneration == state.value.generation else { return }
    dropLink("malformed packet from flicd (\(error)); dropping the connection and reconnecting")
  }

  private func reopenLater(_ index: Int) {
    let current = state.value.generation
    loop.scheduleTask(in: .seconds(5)) { [self] in
      guard current == state.value.generation, state.value.channel != nil, !state.value.stopped else { return }
      send(.removeConnectionChannel(connectionID: UInt32(index + 1)))
      openChannel(index)
    }
  }

  private func buttonIndex(_ id: UInt32) -> Int? {
    let index = Int(id) - 1
    return config.buttons.indices.contains(index) ? index : nil
  }

  private func setLinked(_ index: Int, _ value: Bool) {
    guard state.value.linked[index] != value else { return }
    state.value.linked[index] = value
    events.connected(index, value)
  }
}

/// Frames and decodes flicd's byte stream for one socket.
final class FlicdClientHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer

  let connection: FlicdConnection
  let generation: Int
  var framer = PacketFramer()
  var failed = false

  init(connection: FlicdConnection, generation: Int) {
    self.connection = connection
    self.generation = generation
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !failed else { return }
    var buffer = unwrapInboundIn(data)
    framer.append(buffer.readBytes(length: buffer.readableBytes) ?? [])
    do {
      while let packet = try framer.nextPacket() {
        connection.received(try EventPacket.decode(packet), generation: generation)
      }
    } catch {
      failed = true
      connection.receivedMalformed(error, generation: generation)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    connection.linkLost(generation: generation, reason: "connection closed")
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    context.close(promise: nil)
  }
}

extension EventPacket {
  var isUnknown: Bool {
    if case .unknown = self { true } else { false }
  }
}

extension ButtonAction {
  /// The action's name as configs and `patchbay send` spell it.
  var configName: String {
    switch self {
    case .down: "down"
    case .up: "up"
    case .click: "click"
    case .doubleClick: "double_click"
    case .hold: "hold"
    }
  }
}
