import NIOCore

/// A controller connection's bytes, all its state on the channel's event loop: requests out
/// (sealed once pair-verify succeeded), responses matched to requests in order, EVENT
/// messages into the event stream. Anything the accessory sends that does not decrypt or parse
/// closes the connection.
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
  private var parser = HTTPResponseParser()
  private var waiting = CircularBuffer<EventLoopPromise<HTTPResponse>>()
  private var reader: HAPFrameCodec?
  private var writer: HAPFrameCodec?
  private var encrypted: [UInt8] = []
  private var failure: HAPClientError?

  init(events: AsyncStream<HAPCharacteristicValue>.Continuation) { self.events = events }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    switch unwrapOutboundIn(data) {
    case .request(var bytes, let answer):
      if let failure {
        answer.fail(failure)
        promise?.fail(failure)
        return
      }
      waiting.append(answer)
      if writer != nil { bytes = writer!.seal(bytes) }
      context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: promise)
    case .encrypt(let keys):
      reader = HAPFrameCodec(key: keys.accessoryToController)
      writer = HAPFrameCodec(key: keys.controllerToAccessory)
      promise?.succeed(())
    }
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
        return fail(context, .malformedResponse("an encrypted frame from the accessory was rejected (\(error))"))
      }
    }
    let responses: [HTTPResponse]
    do {
      responses = try parser.append(bytes)
    } catch {
      return fail(context, .malformedResponse(error.description))
    }
    for response in responses {
      if response.isEvent {
        for value in HAPCharacteristicValue.fromEvent(response.body) { events.yield(value) }
      } else if let answer = waiting.popFirst() {
        answer.succeed(response)
      } else {
        return fail(context, .malformedResponse("a response to no request (status \(response.status))"))
      }
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    fail(context, .connectFailed("\(error)"))
  }

  func channelInactive(context: ChannelHandlerContext) {
    if failure == nil { failure = .connectionClosed }
    finish()
    context.fireChannelInactive()
  }

  private func fail(_ context: ChannelHandlerContext, _ error: HAPClientError) {
    if failure == nil { failure = error }
    finish()
    context.close(promise: nil)
  }

  /// Every request still waiting fails with the reason; the event stream ends.
  private func finish() {
    let reason = failure ?? .connectionClosed
    while let answer = waiting.popFirst() { answer.fail(reason) }
    events.finish()
  }
}
