import NIOCore
import NIOWebSocket

/// Turns websocket frames from the server into whole text messages for the client, and
/// answers pings and close frames.
final class WebSocketClientHandler: ChannelInboundHandler {
  typealias InboundIn = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  private let client: HomebridgeClient
  private var fragments: ByteBuffer?
  private var fragmentsAreText = false

  init(client: HomebridgeClient) { self.client = client }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    switch frame.opcode {
    case .text, .binary:
      fragmentsAreText = frame.opcode == .text
      fragments = frame.unmaskedData
      if frame.fin { deliver(context: context) }
    case .continuation:
      guard var buffer = fragments else { return }
      var more = frame.unmaskedData
      guard buffer.readableBytes + more.readableBytes <= HomebridgeClient.maxFrameSize else {
        fragments = nil
        return
      }
      buffer.writeBuffer(&more)
      fragments = buffer
      if frame.fin { deliver(context: context) }
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

  private func deliver(context: ChannelHandlerContext) {
    guard let buffer = fragments else { return }
    fragments = nil
    if fragmentsAreText {
      client.received(text: String(buffer: buffer), on: context.channel)
    } else {
      client.receivedControlFrame(on: context.channel)
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    client.failed(error, on: context.channel)
  }
}
