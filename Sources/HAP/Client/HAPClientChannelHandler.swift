import NIOCore

/// A controller connection's bytes, all its state on the channel's event loop: requests out
/// one at a time (the next once the previous is answered: never more in flight than the
/// accessory answers), sealed once pair-verify succeeded; EVENT messages into the event
/// stream. Anything the accessory sends that does not decrypt or parse, or an answer later
/// than the request timeout, closes the connection.
final class HAPClientChannelHandler: ChannelDuplexHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundIn = Outbound
  typealias OutboundOut = ByteBuffer

  enum Outbound: Sendable {
    /// The request's bytes and where its response goes.
    case request([UInt8], EventLoopPromise<HTTPResponse>)
    /// Pair-verify's M4 said yes: every later byte both ways is in encrypted frames.
    case encrypt(HAPSessionKeys)
  }

  private let events: AsyncStream<HAPCharacteristicValue>.Continuation
  private let requestTimeout: TimeAmount
  private var context: ChannelHandlerContext?
  private var parser = HTTPResponseParser()
  private var queued = CircularBuffer<(bytes: [UInt8], answer: EventLoopPromise<HTTPResponse>)>()
  private var inFlight: (answer: EventLoopPromise<HTTPResponse>, deadline: Scheduled<Void>)?
  private var reader: HAPFrameCodec?
  private var writer: HAPFrameCodec?
  private var encrypted: [UInt8] = []
  private var failure: HAPClientError?

  init(events: AsyncStream<HAPCharacteristicValue>.Continuation, requestTimeout: TimeAmount) {
    self.events = events
    self.requestTimeout = requestTimeout
  }

  func handlerAdded(context: ChannelHandlerContext) { self.context = context }
  func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    switch unwrapOutboundIn(data) {
    case .request(let bytes, let answer):
      if let failure {
        answer.fail(failure)
        promise?.fail(failure)
        return
      }
      queued.append((bytes, answer))
      promise?.succeed(())
      sendNext()
    case .encrypt(let keys):
      reader = HAPFrameCodec(key: keys.accessoryToController)
      writer = HAPFrameCodec(key: keys.controllerToAccessory)
      promise?.succeed(())
    }
  }

  private func sendNext() {
    guard inFlight == nil, failure == nil, let context, let (bytes, answer) = queued.popFirst() else { return }
    let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
    let timeout = requestTimeout
    let deadline = context.eventLoop.scheduleTask(in: timeout) {
      handler.value.fail(.timedOut(seconds: Int(timeout.nanoseconds / 1_000_000_000)))
    }
    inFlight = (answer, deadline)
    let sealed = writer != nil ? writer!.seal(bytes) : bytes
    context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: sealed)), promise: nil)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard failure == nil else { return }
    var buffer = unwrapInboundIn(data)
    var bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
    if reader != nil {
      encrypted += bytes
      do {
        bytes = try reader!.open(&encrypted)
      } catch {
        return fail(.malformedResponse("an encrypted frame from the accessory was rejected (\(error))"))
      }
    }
    let responses: [HTTPResponse]
    do {
      responses = try parser.append(bytes)
    } catch {
      return fail(.malformedResponse(error.description))
    }
    for response in responses {
      if response.isEvent {
        for value in HAPCharacteristicValue.fromEvent(response.body) { events.yield(value) }
      } else if let (answer, deadline) = inFlight {
        inFlight = nil
        deadline.cancel()
        answer.succeed(response)
      } else {
        return fail(.malformedResponse("a response to no request (status \(response.status))"))
      }
    }
    sendNext()
  }

  /// A socket error after connecting (reset by the accessory): the connection is gone.
  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    fail(.connectionClosed)
  }

  func channelInactive(context: ChannelHandlerContext) {
    if failure == nil { failure = .connectionClosed }
    finish()
    context.fireChannelInactive()
  }

  private func fail(_ error: HAPClientError) {
    if failure == nil { failure = error }
    finish()
    context?.close(promise: nil)
  }

  /// Every request still waiting fails with the reason; the event stream ends.
  private func finish() {
    let reason = failure ?? .connectionClosed
    if let (answer, deadline) = inFlight {
      deadline.cancel()
      answer.fail(reason)
    }
    inFlight = nil
    while let (_, answer) = queued.popFirst() { answer.fail(reason) }
    events.finish()
  }
}
