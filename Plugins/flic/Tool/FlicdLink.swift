import FlicProtocol
import Foundation
import NIOCore
import NIOPosix

/// A short-lived, blocking flicd client for the CLI helpers: send commands, wait for events.
final class FlicdLink: Sendable {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  private let channel: Channel
  private let inbox: EventInbox
  let endpoint: String

  init(host: String, port: Int) throws {
    endpoint = "\(host):\(port)"
    let loop = group.next()
    let inbox = EventInbox(loop: loop)
    self.inbox = inbox
    do {
      channel = try ClientBootstrap(group: loop)
        .connectTimeout(.seconds(5))
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(EventInboxHandler(inbox: inbox))
          }
        }
        .connect(host: host, port: port).wait()
    } catch {
      try? group.syncShutdownGracefully()
      throw Failure(description: "cannot reach flicd at \(endpoint) (\(error)); is flicd running? (--host, --port)")
    }
  }

  func send(_ command: CommandPacket) {
    channel.writeAndFlush(ByteBuffer(bytes: command.encoded()), promise: nil)
  }

  /// The next event, waiting until `deadline`. Throws on timeout, a closed link or garbage.
  func next(before deadline: Date) throws -> EventPacket {
    switch inbox.take(before: deadline) {
    case .event(let event): return event
    case .timedOut: throw Failure(description: "flicd at \(endpoint) did not answer in time")
    case .closed: throw Failure(description: "flicd at \(endpoint) closed the connection")
    case .malformed(let error): throw Failure(description: "flicd at \(endpoint) sent a malformed packet: \(error)")
    }
  }

  /// Waits for the first event `match` accepts, skipping others.
  func await<T>(before deadline: Date, _ match: (EventPacket) -> T?) throws -> T {
    while true {
      if let found = match(try next(before: deadline)) { return found }
    }
  }

  func close() {
    try? channel.close().wait()
    try? group.syncShutdownGracefully()
  }
}

/// Decoded events waiting to be taken by the CLI thread. They are kept on the link's event
/// loop; `take` waits there for the next one, its deadline a scheduled timeout.
final class EventInbox: Sendable {
  enum Item: Sendable {
    case event(EventPacket)
    case timedOut
    case closed
    case malformed(FlicProtocolError)
  }

  private let loop: any EventLoop
  private let state: NIOLoopBoundBox<State>

  private struct State {
    var items: [Item] = []
    var ended: Item?
    /// The `take` waiting for an item, and its timeout.
    var waiter: (promise: EventLoopPromise<Item>, timeout: Scheduled<Void>)?
  }

  init(loop: any EventLoop) {
    self.loop = loop
    state = NIOLoopBoundBox.makeBoxSendingValue(State(), eventLoop: loop)
  }

  /// On the loop.
  func put(_ item: Item) {
    if case .event = item {
      state.value.items.append(item)
    } else if state.value.ended == nil {
      state.value.ended = item
    }
    answerWaiter()
  }

  /// Blocks the calling thread (never the loop) until an item arrives or `deadline` passes.
  func take(before deadline: Date) -> Item {
    let wait = TimeAmount.nanoseconds(Int64(max(0, deadline.timeIntervalSinceNow) * 1e9))
    let answer = loop.flatSubmit { () -> EventLoopFuture<Item> in
      let promise = self.loop.makePromise(of: Item.self)
      let timeout = self.loop.scheduleTask(in: wait) {
        self.state.value.waiter = nil
        promise.succeed(.timedOut)
      }
      self.state.value.waiter = (promise, timeout)
      self.answerWaiter()
      return promise.futureResult
    }
    return (try? answer.wait()) ?? .closed
  }

  /// Hands the waiting `take` the next item, if there is one.
  private func answerWaiter() {
    guard let waiter = state.value.waiter else { return }
    let item: Item
    if !state.value.items.isEmpty {
      item = state.value.items.removeFirst()
    } else if let ended = state.value.ended {
      item = ended
    } else {
      return
    }
    state.value.waiter = nil
    waiter.timeout.cancel()
    waiter.promise.succeed(item)
  }
}

final class EventInboxHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  let inbox: EventInbox
  var framer = PacketFramer()

  init(inbox: EventInbox) { self.inbox = inbox }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var buffer = unwrapInboundIn(data)
    framer.append(buffer.readBytes(length: buffer.readableBytes) ?? [])
    do {
      while let packet = try framer.nextPacket() { inbox.put(.event(try EventPacket.decode(packet))) }
    } catch {
      inbox.put(.malformed(error))
      context.close(promise: nil)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    inbox.put(.closed)
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    context.close(promise: nil)
  }
}
