import Logging
import NIOCore
import NIOPosix
import PatchbayValues
import Synchronization

/// The accessory server: one listener, one `HAPConnectionHandler` per controller connection
/// (state on its event loop), the pairing state in `HAPPairingAuthority`, and the registry of
/// connections and pending events here, under a mutex.
public final class HAPServer: Sendable {
  /// How long hub-side changes are collected before one EVENT carries them.
  static let coalescingDelay = TimeAmount.milliseconds(50)

  struct Change: Sendable {
    var id: HAPCharacteristicID
    var value: JSONValue
    /// Not echoed to this connection (the session whose write caused the change) ...
    var exceptConnection: Int?
    /// ... or, for a change announced outside a write, to any session of this controller.
    var exceptController: String?
  }

  /// The connection whose `PUT /characteristics` the delegate is answering, while it does.
  @TaskLocal static var writingConnection: Int?

  private struct Connection: Sendable {
    var channel: any Channel
    var handler: NIOLoopBound<HAPConnectionHandler>?
    var controller: String?
  }

  private struct Registry: Sendable {
    var listener: (any Channel)?
    var connections: [Int: Connection] = [:]
    var nextID = 0
    var refusing = false
    var stopped = false
    /// Changes waiting for the coalescing delay, in arrival order, latest value per id.
    var pending: [Change] = []
    var flushScheduled = false
  }

  private let configuration: HAPServerConfiguration
  private let delegate: any HAPAccessoryDelegate
  private let group: any EventLoopGroup
  private let logger: Logger
  private let authority: HAPPairingAuthority
  private let registry = Mutex(Registry())

  public init(
    configuration: HAPServerConfiguration, delegate: any HAPAccessoryDelegate, group: any EventLoopGroup,
    logger: Logger
  ) {
    self.configuration = configuration
    self.delegate = delegate
    self.group = group
    self.logger = logger
    authority = HAPPairingAuthority(
      identity: configuration.identity, code: configuration.setupCode, state: configuration.pairingState,
      delegate: delegate, logger: logger)
  }

  private var router: HAPRequestRouter {
    HAPRequestRouter(
      identity: configuration.identity, authority: authority, delegate: delegate, logger: logger,
      closeSessions: { [self] controllers, except in closeSessions(of: controllers, except: except) })
  }

  /// Starts listening; returns the bound port.
  public func start() async throws -> Int {
    let router = router
    let bootstrap = ServerBootstrap(group: group)
      .serverChannelOption(.backlog, value: 256)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
      .childChannelInitializer { [self] channel in
        guard let id = admit(channel) else {
          return channel.close()
        }
        return channel.eventLoop.makeCompletedFuture {
          let handler = HAPConnectionHandler(id: id, server: self, router: router, logger: logger)
          try channel.pipeline.syncOperations.addHandler(handler)
          let bound = NIOLoopBound(handler, eventLoop: channel.eventLoop)
          registry.withLock { $0.connections[id]?.handler = bound }
        }
      }
    let listener = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
    registry.withLock { $0.listener = listener }
    let port = listener.localAddress?.port ?? configuration.port
    logger.info("HAP server listening on \(configuration.host) port \(port)")
    return port
  }

  /// A connection's slot, or nil when `maxConnections` are open (refused, logged once per burst).
  private func admit(_ channel: any Channel) -> Int? {
    let (id, logRefusal) = registry.withLock { registry -> (Int?, Bool) in
      guard !registry.stopped, registry.connections.count < configuration.maxConnections else {
        defer { registry.refusing = true }
        return (nil, !registry.refusing)
      }
      registry.refusing = false
      registry.nextID += 1
      registry.connections[registry.nextID] = Connection(channel: channel)
      return (registry.nextID, false)
    }
    if logRefusal {
      logger.warning("refusing connections: \(configuration.maxConnections) controllers are connected (maxConnections)")
    }
    return id
  }

  func connectionVerified(_ id: Int, controller: String) {
    registry.withLock { $0.connections[id]?.controller = controller }
  }

  /// The slot is freed after the authority forgot the connection's pair-setup, so a count of
  /// open connections never includes one whose setup still blocks others.
  func connectionClosed(_ id: Int) {
    let authority = authority
    Task(executorPreference: EventLoopTaskExecutor(group.next())) { [self] in
      await authority.connectionClosed(id)
      registry.withLock { _ = $0.connections.removeValue(forKey: id) }
    }
  }

  private func closeSessions(of controllers: [String], except: Int) {
    let channels = registry.withLock { registry in
      registry.connections.filter { $0.key != except && $0.value.controller.map(controllers.contains) == true }
        .map(\.value.channel)
    }
    for channel in channels { channel.close(promise: nil) }
  }

  /// Hub-side changes: an EVENT to every verified connection subscribed to each id (coalesced;
  /// `immediately` for button presses). `except`: the controller pairing id whose own write
  /// caused the change. Called while answering that write, the change is not echoed to the
  /// session that wrote, but goes to the controller's other sessions: several devices share one
  /// pairing id (an Apple ID's iPhone and iPad), and the others must see what one did, as
  /// HAP-NodeJS and HAP-python do. Called outside a write, no session of `except` gets it.
  public func notify(_ changes: [(HAPCharacteristicID, JSONValue)], immediately: Bool, except: String?) {
    let writer = except == nil ? nil : Self.writingConnection
    let incoming = changes.map {
      Change(id: $0.0, value: $0.1, exceptConnection: writer, exceptController: writer == nil ? except : nil)
    }
    if immediately {
      // Pending changes go first, so an id's values arrive in order.
      let pending = registry.withLock { registry in
        defer { registry.pending = [] }
        return registry.pending
      }
      deliver(pending + incoming)
      return
    }
    let schedule = registry.withLock { registry in
      for change in incoming {
        registry.pending.removeAll { $0.id == change.id }
        registry.pending.append(change)
      }
      defer { registry.flushScheduled = true }
      return !registry.flushScheduled
    }
    if schedule {
      group.next().scheduleTask(in: Self.coalescingDelay) { [self] in
        let pending = registry.withLock { registry in
          defer {
            registry.pending = []
            registry.flushScheduled = false
          }
          return registry.pending
        }
        deliver(pending)
      }
    }
  }

  private func deliver(_ changes: [Change]) {
    guard !changes.isEmpty else { return }
    let handlers = registry.withLock { $0.connections.values.compactMap { $0.controller == nil ? nil : $0.handler } }
    for handler in handlers {
      handler.eventLoop.execute { handler.value.deliver(changes) }
    }
  }

  /// Open controller connections (for status).
  public var connectionCount: Int { registry.withLock { $0.connections.count } }

  /// The pairing state as the server holds it now.
  public var pairingState: HAPPairingState { get async { await authority.state } }

  /// Closes the listener and every connection.
  public func stop() async {
    let (listener, channels) = registry.withLock { registry in
      registry.stopped = true
      return (registry.listener, registry.connections.values.map(\.channel))
    }
    try? await listener?.close()
    for channel in channels { try? await channel.close() }
  }
}
