import Foundation
import HomebridgeProtocol
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// The simulated Homebridge-websocket server: a websocket endpoint around `HomebridgeModel`.
/// Like the real plugin, every client's messages are handled, but all traffic goes to the
/// most recently connected client, and after that client has left into its closed socket
/// (lost); HomeKit writes of brightness and target values are debounced by 300 ms; frames
/// that would crash Homebridge are refused and their connection closed, except those that
/// kill the real Node process, which end the simulator (exit status 1). All state is
/// confined to one event loop, in a box that checks it.
final class HomebridgeServer: Sendable {
  let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  let loop: any EventLoop
  private let cache: AccessoryCache?
  private let state: NIOLoopBoundBox<State>
  private let listener = Mutex<(any Channel)?>(nil)

  /// Everything that changes, on `loop`.
  private struct State {
    var model: HomebridgeModel
    /// The client that receives all traffic: the most recently connected one, even after it
    /// left (the real plugin keeps writing into that closed socket).
    var newest: (number: Int, channel: any Channel)?
    var clientCount = 0
    /// Every client whose socket is open (a restart closes them all).
    var open: [Int: any Channel] = [:]
    var debounced: [HomebridgeModel.Key: Scheduled<Void>] = [:]
  }

  static let debouncedCharacteristics: Set<String> = ["Brightness", "TargetPosition", "TargetHorizontalTiltAngle"]
  static let debounceDelay = TimeAmount.milliseconds(300)
  /// The largest frame, and message, a client may send.
  static let maxFrameSize = 1 << 20

  init(automations: [Automation], cache: AccessoryCache?) throws {
    loop = group.next()
    self.cache = cache
    let model = HomebridgeModel(accessories: try cache?.load() ?? [], automations: automations)
    state = NIOLoopBoundBox.makeBoxSendingValue(State(model: model), eventLoop: loop)
  }

  /// Binds and listens; returns the bound port.
  func start(host: String, port: Int) throws -> Int {
    let bootstrap = ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { channel in
        let upgrader = NIOWebSocketServerUpgrader(
          maxFrameSize: Self.maxFrameSize, automaticErrorHandling: true,
          shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
          upgradePipelineHandler: { channel, _ in
            channel.eventLoop.makeCompletedFuture {
              // The server has one loop, so this runs where the server's state lives.
              channel.pipeline.syncOperations.removeHandler(name: PlainHTTPResponder.name, promise: nil)
              let number = self.connected(channel)
              try channel.pipeline.syncOperations.addHandlers(
                MaskedFrameCheck(), WebSocketServerHandler.aggregator(),
                WebSocketServerHandler(server: self, client: number))
            }
          })
        return channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
          try channel.pipeline.syncOperations.addHandler(PlainHTTPResponder(), name: PlainHTTPResponder.name)
        }
      }
    let channel = try bootstrap.bind(host: host, port: port).wait()
    listener.withLock { $0 = channel }
    return channel.localAddress?.port ?? port
  }

  /// Completes when the listening socket closes.
  var closed: EventLoopFuture<Void> {
    listener.withLock { $0 }?.closeFuture ?? loop.makeSucceededVoidFuture()
  }

  func accessoryCount() -> Int { (try? loop.submit { self.state.value.model.accessories.count }.wait()) ?? 0 }

  // MARK: Clients (on the loop)

  private func connected(_ channel: any Channel) -> Int {
    state.value.clientCount += 1
    let address = channel.remoteAddress?.description ?? "unknown"
    if let previous = state.value.newest {
      Console.print(
        "client \(state.value.clientCount) connected from \(address); client \(previous.number) no longer receives traffic"
      )
    } else {
      Console.print("client \(state.value.clientCount) connected from \(address)")
    }
    state.value.newest = (state.value.clientCount, channel)
    state.value.open[state.value.clientCount] = channel
    return state.value.clientCount
  }

  func disconnected(_ client: Int) {
    state.value.open[client] = nil
    if state.value.newest?.number == client {
      Console.print(
        "client \(client) disconnected; the server's traffic still goes to it (into its closed socket) "
          + "until another client connects")
    } else {
      Console.print("client \(client) disconnected")
    }
  }

  func received(text: String, from client: Int, channel: any Channel) {
    let output = state.value.model.handle(text: text)
    if let crash = output.crash {
      // The real plugin throws out of its message handler: Node exits, every socket closes,
      // nothing listens until Homebridge is started again.
      Console.print("Homebridge crashed on a frame from client \(client): \(crash); the Node process exits")
      exit(1)
    }
    if let refusal = output.refusal {
      Console.print(
        "refused a frame from client \(client), it would crash Homebridge: \(refusal); closing the connection")
      channel.close(promise: nil)
      return
    }
    apply(output)
  }

  func protocolError(_ message: String, client: Int, channel: any Channel) {
    Console.print("client \(client): \(message); closing the connection")
    channel.close(promise: nil)
  }

  private func apply(_ output: HomebridgeModel.Output) {
    Console.print(output.lines)
    for reply in output.replies {
      if let lost = send(reply) { Console.print("\(reply.frame.topic) \(lost)") }
    }
    for write in output.homeKitWrites { sendHomeKitWrite(write) }
    for read in output.homeKitReads {
      guard case .get(let name, let characteristic) = read, let lost = send(read) else { continue }
      Console.print("homekit get \(name).\(characteristic): \(lost)")
    }
    if output.accessoriesChanged, let cache {
      do {
        try cache.save(state.value.model.accessories)
      } catch {
        Console.print("cannot save the accessory cache: \(error)")
      }
    }
  }

  /// Sends to the client that receives the traffic; returns what happened to a message that
  /// reached nobody.
  @discardableResult
  private func send(_ message: ServerMessage) -> String? {
    guard let (number, channel) = state.value.newest else { return "not sent: no client has connected" }
    guard channel.isActive else { return "sent to client \(number), which has disconnected; lost" }
    let text = message.text
    var buffer = channel.allocator.buffer(capacity: text.utf8.count)
    buffer.writeString(text)
    channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: buffer), promise: nil)
    return nil
  }

  /// The real plugin holds brightness and target writes for 300 ms; a newer write replaces
  /// the held one, so a slider drag arrives as one value.
  private func sendHomeKitWrite(_ message: ServerMessage) {
    guard case .set(let name, let characteristic, let value) = message else { return }
    let key = HomebridgeModel.Key(accessory: name, characteristic: characteristic)
    let deliver: @Sendable () -> Void = {
      guard self.state.value.newest != nil else {
        Console.print("homekit set \(key) = \(value.description): no client connected (HomeKit shows an error)")
        return
      }
      if let lost = self.send(message) {
        Console.print("homekit set \(key) = \(value.description): \(lost) (HomeKit shows success)")
      } else {
        Console.print("homekit set \(key) = \(value.description)")
      }
    }
    guard Self.debouncedCharacteristics.contains(characteristic) else { return deliver() }
    state.value.debounced[key]?.cancel()
    state.value.debounced[key] = loop.scheduleTask(in: Self.debounceDelay) {
      self.state.value.debounced[key] = nil
      deliver()
    }
  }

  // MARK: Control commands (any thread)

  /// Runs one control line; the future holds the lines to show its sender.
  func control(_ line: String) -> EventLoopFuture<[String]> {
    loop.submit {
      let command: ControlCommand
      do {
        command = try ControlCommand(parsing: line)
      } catch {
        return ["error: \(error)"]
      }
      switch command {
      case .homeKitSet(let accessory, let characteristic, let value):
        let output = self.state.value.model.homeKitSet(
          .init(accessory: accessory, characteristic: characteristic), to: value)
        self.apply(output)
        return output.lines.contains { $0.hasPrefix("error:") } ? output.lines : ["ok"]
      case .homeKitGet(let accessory, let characteristic):
        let output = self.state.value.model.homeKitGet(.init(accessory: accessory, characteristic: characteristic))
        self.apply(output)
        return output.lines.contains { $0.hasPrefix("error:") } ? output.lines : ["ok"]
      case .restart:
        return self.restart()
      case .table:
        return self.state.value.model.table()
      case .help:
        return ControlCommand.usage
      }
    }
  }

  /// Homebridge restarts as after a reboot: every client's socket closes, and the accessories
  /// come back from the cache file (none without `--cache`) with every value blank, as 0.2.2
  /// restores them (`i_value = "blank"`; HomeKit shows the characteristic's default, Off, until
  /// a client sets one). The port stays bound: the restart is quicker than any reconnect.
  private func restart() -> [String] {
    for channel in state.value.open.values { channel.close(promise: nil) }
    state.value.open = [:]
    state.value.newest = nil
    for held in state.value.debounced.values { held.cancel() }
    state.value.debounced = [:]
    let accessories: [SimulatedAccessory]
    do {
      accessories = try cache?.load() ?? []
    } catch {
      return ["error: \(error)"]
    }
    state.value.model = HomebridgeModel(accessories: accessories, automations: state.value.model.automations)
    Console.print("Homebridge restarted: \(accessories.count) cached accessories, every value blank")
    return ["ok"]
  }

  func shutdown() {
    try? listener.withLock { $0 }?.close().wait()
    try? group.syncShutdownGracefully()
  }
}
