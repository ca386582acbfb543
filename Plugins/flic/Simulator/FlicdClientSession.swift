import FlicProtocol
import NIOCore

/// One connected client: its connection channels, battery listeners, scanners and scan
/// wizards. Confined to the daemon's event loop.
final class FlicdClientSession {
  struct ConnectionChannel {
    var address: BluetoothAddress
    var latencyMode: LatencyMode
    var autoDisconnectTime: Int16
  }

  let id: Int
  let channel: Channel
  var connectionChannels: [UInt32: ConnectionChannel] = [:]
  var batteryListeners: [UInt32: BluetoothAddress] = [:]
  var scanners: Set<UInt32> = []
  /// Running scan wizards and their give-up timers.
  var scanWizards: [UInt32: Scheduled<Void>] = [:]
  /// Wizards already sent ScanWizardFoundPrivateButton (flicd sends it once per wizard).
  var scanWizardsToldPrivate: Set<UInt32> = []

  init(id: Int, channel: Channel) {
    self.id = id
    self.channel = channel
  }

  func send(_ event: EventPacket) {
    channel.writeAndFlush(ByteBuffer(bytes: event.encoded()), promise: nil)
  }

  func channels(for address: BluetoothAddress) -> [UInt32] {
    connectionChannels.filter { $0.value.address == address }.map(\.key).sorted()
  }
}

/// Reads commands from one client's socket and hands them to the daemon.
final class FlicdClientSessionHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer

  let daemon: SimulatedDaemon
  var session: FlicdClientSession?
  var framer = PacketFramer()

  /// Runs on the daemon's loop: the server has one thread, so its clients share it.
  init(daemon: NIOLoopBound<SimulatedDaemon>) { self.daemon = daemon.value }

  func channelActive(context: ChannelHandlerContext) {
    session = daemon.clientConnected(context.channel)
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    if let session { daemon.clientDisconnected(session) }
    session = nil
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var buffer = unwrapInboundIn(data)
    framer.append(buffer.readBytes(length: buffer.readableBytes) ?? [])
    guard let session else { return }
    do {
      while let packet = try framer.nextPacket() {
        daemon.handle(try CommandPacket.decode(packet), from: session)
      }
    } catch {
      // flicd drops a client that sends garbage; so does the simulator.
      daemon.log.line("client \(session.id) malformed command: \(error); closing")
      context.close(promise: nil)
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    context.close(promise: nil)
  }
}
