import NIOCore
import NIOHTTPTypes

/// Time limits against half-open requests (slowloris). Hummingbird's idle timeout closes a
/// connection whose request head has not come within `header` (it counts from the last whole
/// part: bytes of an unfinished head do not reset it) and a kept-alive one that sends nothing;
/// this handler adds the body's limit: once the head is in, the whole request must follow
/// within `body`, however slowly it trickles. A response being written (the live event stream)
/// is not limited.
final class RequestDeadlines: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart

  static let header = TimeAmount.seconds(10)
  static let body = TimeAmount.seconds(30)

  private var bodyDeadline: Scheduled<Void>?

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head:
      bodyDeadline?.cancel()
      let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
      bodyDeadline = context.eventLoop.scheduleTask(in: Self.body) { loopBound.value.close(promise: nil) }
    case .end:
      bodyDeadline?.cancel()
      bodyDeadline = nil
    case .body:
      break
    }
    context.fireChannelRead(data)
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    bodyDeadline?.cancel()
    bodyDeadline = nil
  }

  func channelInactive(context: ChannelHandlerContext) {
    bodyDeadline?.cancel()
    bodyDeadline = nil
    context.fireChannelInactive()
  }
}
