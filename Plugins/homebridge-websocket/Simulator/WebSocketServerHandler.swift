import NIOCore
import NIOHTTP1
import NIOWebSocket

/// One client's websocket: whole text messages to the server (NIO's frame aggregator in front
/// of it joins fragments), pings answered.
final class WebSocketServerHandler: ChannelInboundHandler {
  typealias InboundIn = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  private let server: HomebridgeServer
  private let client: Int

  init(server: HomebridgeServer, client: Int) {
    self.server = server
    self.client = client
  }

  /// Joins a fragmented message into one frame, up to the simulator's frame size.
  static func aggregator() -> NIOWebSocketFrameAggregator {
    NIOWebSocketFrameAggregator(
      minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1024, maxAccumulatedFrameSize: HomebridgeServer.maxFrameSize
    )
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    switch frame.opcode {
    case .text:
      server.received(text: String(buffer: frame.unmaskedData), from: client, channel: context.channel)
    case .binary:
      // The real plugin JSON.parses binary messages too; bytes that are not JSON crash it.
      server.received(
        text: String(decoding: frame.unmaskedData.readableBytesView, as: UTF8.self), from: client,
        channel: context.channel)
    case .ping:
      context.writeAndFlush(
        wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
    case .connectionClose:
      let channel = context.channel
      context.writeAndFlush(
        wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData))
      )
      .whenComplete { _ in channel.close(promise: nil) }
    default:
      break
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    server.disconnected(client)
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    let message = error is MaskedFrameCheck.UnmaskedFrame ? "\(error)" : "websocket error \(error)"
    server.protocolError(message, client: client, channel: context.channel)
  }
}

/// Answers plain HTTP requests (no websocket upgrade) the way a websocket-only server does.
final class PlainHTTPResponder: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart
  static let name = "homebridge-plain-http"

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard case .end = unwrapInboundIn(data) else { return }
    let body = "homebridge-websocket simulator: connect with a websocket client\n"
    var headers = HTTPHeaders()
    headers.add(name: "Content-Length", value: String(body.utf8.count))
    headers.add(name: "Connection", value: "close")
    context.write(
      wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .upgradeRequired, headers: headers))),
      promise: nil)
    context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
    let channel = context.channel
    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
  }
}
