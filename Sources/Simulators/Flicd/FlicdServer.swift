import FlicProtocol
import Foundation
import NIOCore
import NIOPosix

/// A simulated flicd on a real TCP socket, with a control interface to press buttons, move
/// them out of range, pair new ones. Usable in-process (tests) or through `patchbay-sim flicd`.
public final class FlicdServer: @unchecked Sendable {
  public struct Configuration: Sendable {
    public var host = "127.0.0.1"
    public var port = 5551
    /// Paired buttons at start.
    public var buttons: [(BluetoothAddress, String)] = []
    /// How long a scan wizard waits for a button in pairing mode.
    public var scanWizardTimeout: Duration = .seconds(20)
    public init() {}
  }

  public let configuration: Configuration
  public let log: EventLog
  private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  private let daemon: SimulatedDaemon
  private var serverChannel: Channel?

  public init(configuration: Configuration, log: EventLog = EventLog()) {
    self.configuration = configuration
    self.log = log
    let (seconds, attoseconds) = configuration.scanWizardTimeout.components
    daemon = SimulatedDaemon(
      loop: group.next(), log: log, buttons: configuration.buttons,
      scanWizardTimeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
  }

  /// The bound port (the configured one, or the one the system chose for port 0).
  public private(set) var port = 0

  /// Binds and starts serving clients.
  public func start() throws {
    let daemon = self.daemon
    let channel = try ServerBootstrap(group: group)
      // A test kills and restarts the simulator on the same port.
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(ClientSessionHandler(daemon: daemon))
        }
      }
      .bind(host: configuration.host, port: configuration.port).wait()
    serverChannel = channel
    port = channel.localAddress?.port ?? configuration.port
    log.line("flicd simulator listening on \(configuration.host):\(port)")
  }

  /// Runs one control line and returns its answer. May block (sleep, wait-channel); call it
  /// from a thread of your own, not from an event loop. `quit` only answers; the caller stops.
  public func perform(_ line: String) throws -> String {
    guard let command = try ControlCommand.parse(line) else { return "" }
    switch command {
    case .sleep(let ms):
      Thread.sleep(forTimeInterval: Double(ms) / 1000)
      return "ok"
    case .waitChannel(let address, let timeout):
      let deadline = Date().addingTimeInterval(timeout)
      while Date() < deadline {
        if try daemon.loop.submit({ self.daemon.hasReadyChannel(address) }).wait() { return "ok" }
        Thread.sleep(forTimeInterval: 0.05)
      }
      throw ControlError("wait-channel: no client has a ready channel to \(address) after \(timeout) s")
    case .quit:
      return "bye"
    default:
      return try daemon.loop.submit { try self.daemon.apply(command) }.wait()
    }
  }

  /// Closes every client and the listening socket.
  public func shutdown() {
    try? serverChannel?.close().wait()
    try? group.syncShutdownGracefully()
  }
}
