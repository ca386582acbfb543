import NIOCore
import NIOWebSocket

/// The rule the real `ws` server enforces on every frame, fragments included: a client masks
/// what it sends (RFC 6455). It stands before the aggregator, which drops the masks; an
/// unmasked frame goes no further and is reported as an error, which closes the connection.
final class MaskedFrameCheck: ChannelInboundHandler {
  typealias InboundIn = WebSocketFrame
  typealias InboundOut = WebSocketFrame

  struct UnmaskedFrame: Error, CustomStringConvertible {
    var description: String { "sent an unmasked frame (RFC 6455 requires clients to mask)" }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard unwrapInboundIn(data).maskKey != nil else { return context.fireErrorCaught(UnmaskedFrame()) }
    context.fireChannelRead(data)
  }
}
