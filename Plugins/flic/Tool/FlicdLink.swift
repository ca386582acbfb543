import FlicProtocol
import Foundation
import NIOCore
import NIOPosix

/// A short-lived, blocking flicd client for the CLI helpers: send commands, wait for events.
final class FlicdLink: @unchecked Sendable {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  private let channel: Channel
  private let inbox: EventInbox
  let endpoint: String

  init(host: String, port: Int) throws {
    endpoint = "\(host):\(port)"
    let inbox = EventInbox()
    self.inbox = inbox
    do {
      channel = try ClientBootstrap(group: group)
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

/// Decoded events waiting to be taken by the CLI thread.
final class EventInbox: @unchecked Sendable {
  enum Item {
    case event(EventPacket)
    case timedOut
    case closed
    case malformed(FlicProtocolError)
  }

  private let condition = NSCondition()
  private var items: [Item] = []
  private var ended: Item?

  func put(_ item: Item) {
    condition.lock()
    if case .event = item { items.append(item) } else if ended == nil { ended = item }
    condition.broadcast()
    condition.unlock()
  }

  func take(before deadline: Date) -> Item {
    condition.lock()
    defer { condition.unlock() }
    while items.isEmpty && ended == nil {
      if !condition.wait(until: deadline) { return .timedOut }
    }
    return items.isEmpty ? ended! : items.removeFirst()
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
