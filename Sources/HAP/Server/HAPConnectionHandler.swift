import Logging
import NIOCore
import PatchbayValues

/// One controller connection, all its state on the channel's event loop: plaintext until
/// pair-verify, then encrypted frames both ways; requests answered one at a time, in order.
final class HAPConnectionHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  /// Pipelined requests beyond this close the connection (a controller sends one at a time).
  static let maximumQueuedRequests = 16

  private let id: Int
  private let server: HAPServer
  private let router: HAPRequestRouter
  private let logger: Logger
  private var context: ChannelHandlerContext?
  private var parser = HTTPRequestParser()
  private var queue: [HTTPRequest] = []
  private var busy = false
  private var closing = false
  private var reader: HAPFrameCodec?
  private var writer: HAPFrameCodec?
  private var encrypted: [UInt8] = []
  private var pairVerify: PairVerify?
  private var controller: String?
  private var subscriptions: Set<HAPCharacteristicID> = []
  private var prepared: (pid: UInt64, deadline: NIODeadline)?

  init(id: Int, server: HAPServer, router: HAPRequestRouter, logger: Logger) {
    self.id = id
    self.server = server
    self.router = router
    self.logger = logger
  }

  func handlerAdded(context: ChannelHandlerContext) { self.context = context }
  func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

  func channelInactive(context: ChannelHandlerContext) {
    closing = true
    server.connectionClosed(id)
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    logger.debug("connection \(id): \(error)")
    close()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !closing else { return }
    var buffer = unwrapInboundIn(data)
    var bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
    if reader != nil {
      encrypted += bytes
      do {
        bytes = try reader!.open(&encrypted)
      } catch {
        logger.info("connection \(id) closed: encrypted frame rejected (\(error))")
        return close()
      }
    }
    do {
      queue += try parser.append(bytes)
    } catch {
      // Anyone on the network can send garbage: not worth more than a debug line each.
      logger.debug("connection \(id) closed: bad request (\(error))")
      send(HTTPResponse(status: error.status))
      return close()
    }
    guard queue.count <= Self.maximumQueuedRequests else {
      logger.debug("connection \(id) closed: \(queue.count) requests pipelined")
      return close()
    }
    processNext()
  }

  private func processNext() {
    guard !busy, !closing, !queue.isEmpty, let context else { return }
    busy = true
    let request = queue.removeFirst()
    if let prepared, prepared.deadline < .now() { self.prepared = nil }
    let snapshot = HAPConnectionSnapshot(
      id: id, controller: controller, pairVerify: pairVerify, subscriptions: subscriptions,
      preparedWrite: prepared?.pid)
    let router = router
    let loop = context.eventLoop
    let handler = NIOLoopBound(self, eventLoop: loop)
    Task(executorPreference: EventLoopTaskExecutor(loop)) {
      let outcome = await router.route(request, snapshot)
      loop.execute { handler.value.finish(outcome) }
    }
  }

  private func finish(_ outcome: HAPRouterOutcome) {
    busy = false
    guard !closing else { return }
    send(outcome.response)
    for effect in outcome.effects {
      switch effect {
      case .pairVerifyStarted(let verify):
        pairVerify = verify
      case .verified(let controller, let keys):
        // From the next byte on, both directions are encrypted.
        pairVerify = nil
        self.controller = controller
        reader = HAPFrameCodec(key: keys.controllerToAccessory)
        writer = HAPFrameCodec(key: keys.accessoryToController)
        server.connectionVerified(id, controller: controller)
      case .subscribe(let id, let on):
        if on { subscriptions.insert(id) } else { subscriptions.remove(id) }
      case .prepared(let pid, let deadline):
        prepared = (pid, deadline)
      case .preparedWriteUsed:
        prepared = nil
      case .close:
        return close()
      }
    }
    processNext()
  }

  /// Hub-side changes: an EVENT with those this connection subscribed to, except its own writes.
  func deliver(_ changes: [HAPServer.Change]) {
    guard !closing, let controller else { return }
    let items: [JSONValue] = changes.filter {
      subscriptions.contains($0.id) && $0.exceptConnection != id && $0.exceptController != controller
    }.map {
      .object([("aid", .integer(Int64($0.id.aid))), ("iid", .integer(Int64($0.id.iid))), ("value", $0.value)])
    }
    guard !items.isEmpty else { return }
    send(.json(200, .object([("characteristics", .array(items))])).asEvent)
  }

  private func send(_ response: HTTPResponse) {
    guard let context else { return }
    var bytes = response.bytes
    if writer != nil { bytes = writer!.seal(bytes) }
    context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
  }

  func close() {
    guard !closing else { return }
    closing = true
    context?.close(promise: nil)
  }
}

extension HTTPResponse {
  var asEvent: HTTPResponse {
    var event = self
    event.isEvent = true
    return event
  }
}
