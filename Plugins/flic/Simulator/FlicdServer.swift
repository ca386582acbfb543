import FlicProtocol
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A simulated flicd on a real TCP socket, with a control interface to press buttons, move
/// them out of range, pair new ones. Usable in-process (tests) or through `patchbay-sim flicd`.
public final class FlicdServer: Sendable {
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
  /// One thread: the daemon and every client connection live on it.
  private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  private let loop: any EventLoop
  private let daemon: NIOLoopBound<SimulatedDaemon>
  private let listener = Mutex<(any Channel)?>(nil)

  public init(configuration: Configuration, log: EventLog = EventLog()) {
    self.configuration = configuration
    self.log = log
    let (seconds, attoseconds) = configuration.scanWizardTimeout.components
    loop = group.next()
    let timeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    let buttons = configuration.buttons
    let loop = self.loop
    // Made on its loop, where it lives from now on.
    daemon = try! loop.submit {
      NIOLoopBound(
        SimulatedDaemon(loop: loop, log: log, buttons: buttons, scanWizardTimeout: timeout), eventLoop: loop)
    }.wait()
  }

  /// The bound port (the configured one, or the one the system chose for port 0); 0 before `start`.
  public var port: Int { listener.withLock { $0?.localAddress?.port } ?? 0 }

  /// Binds and starts serving clients.
  public func start() throws {
    let daemon = self.daemon
    let channel = try ServerBootstrap(group: group)
      // A test kills and restarts the simulator on the same port.
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(FlicdClientSessionHandler(daemon: daemon))
        }
      }
      .bind(host: configuration.host, port: configuration.port).wait()
    listener.withLock { $0 = channel }
    log.line("flicd simulator listening on \(configuration.host):\(port)")
  }

  /// Runs one control line and returns its answer. May wait (sleep, wait-channel) for the
  /// daemon's loop; call it from a thread of your own, not from an event loop. `quit` only answers; the caller stops.
  public func perform(_ line: String) throws -> String {
    guard let command = try ControlCommand.parse(line) else { return "" }
    switch command {
    case .sleep(let ms):
      // The daemon's loop answers at the time, like wait-channel: the lines after it wait their turn.
      try loop.scheduleTask(in: .milliseconds(Int64(ms))) {}.futureResult.wait()
      return "ok"
    case .waitChannel(let address, let timeout):
      let daemon = self.daemon
      let within = TimeAmount.nanoseconds(Int64(timeout * 1_000_000_000))
      do {
        try loop.flatSubmit { daemon.value.readyChannel(to: address, within: within) }.wait()
        return "ok"
      } catch {
        throw ControlError("wait-channel: no client has a ready channel to \(address) after \(timeout) s")
      }
    case .quit:
      return "bye"
    default:
      return try loop.submit { try self.daemon.value.apply(command) }.wait()
    }
  }

  /// Closes every client and the listening socket.
  public func shutdown() {
    try? listener.withLock { $0 }?.close().wait()
    try? group.syncShutdownGracefully()
  }
}
