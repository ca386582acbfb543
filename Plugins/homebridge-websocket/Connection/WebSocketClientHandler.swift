import NIOCore
import NIOWebSocket

/// Hands whole text messages from the server to the client (NIO's frame aggregator in front of
/// it joins fragments), and answers pings and close frames.
final class WebSocketClientHandler: ChannelInboundHandler {
  typealias InboundIn = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  private let client: HomebridgeClient

  init(client: HomebridgeClient) { self.client = client }

  /// Joins a fragmented message into one frame, up to the client's message size.
  static func aggregator() -> NIOWebSocketFrameAggregator {
    NIOWebSocketFrameAggregator(
      minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1024,
      maxAccumulatedFrameSize: HomebridgeClient.maxFrameSize)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    switch frame.opcode {
    case .text:
      client.received(text: String(buffer: frame.unmaskedData), on: context.channel)
    case .binary:
      client.receivedControlFrame(on: context.channel)
    case .ping:
      client.receivedControlFrame(on: context.channel)
      let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
      context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
    case .pong:
      client.receivedControlFrame(on: context.channel)
    case .connectionClose:
      let close = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: frame.unmaskedData)
      let channel = context.channel
      context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
    default:
      break
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    client.failed(error, on: context.channel)
  }
}
