import NIOCore
import NIOWebSocket

/// The rule the real `ws` server enforces on every frame, fragments included: a client masks
/// what it sends (RFC 6455). It stands before the aggregator, which drops the masks.
final class MaskedFrameCheck: ChannelInboundHandler {
  typealias InboundIn = WebSocketFrame
  typealias InboundOut = WebSocketFrame

  private let server: HomebridgeServer
  private let client: Int

  init(server: HomebridgeServer, client: Int) {
    self.server = server
    self.client = client
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard unwrapInboundIn(data).maskKey != nil else {
      server.protocolError(
        "sent an unmasked frame (RFC 6455 requires clients to mask)", client: client, channel: context.channel)
      return
    }
    context.fireChannelRead(data)
  }
}
