import NIOCore
import NIOHTTP1
import NIOWebSocket

/// One client's websocket: whole text messages to the server, pings answered, and the
/// protocol rules the real `ws` server enforces (client frames must be masked).
final class WebSocketServerHandler: ChannelInboundHandler {
  typealias InboundIn = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  private let server: HomebridgeServer
  private let client: Int
  private var fragments: ByteBuffer?
  private var fragmentsAreText = false

  init(server: HomebridgeServer, client: Int) {
    self.server = server
    self.client = client
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    guard frame.maskKey != nil else {
      server.protocolError(
        "sent an unmasked frame (RFC 6455 requires clients to mask)", client: client, channel: context.channel)
      return
    }
    switch frame.opcode {
    case .text, .binary:
      fragmentsAreText = frame.opcode == .text
      fragments = frame.unmaskedData
      if frame.fin { deliver(context: context) }
    case .continuation:
      guard var buffer = fragments else { return }
      var more = frame.unmaskedData
      buffer.writeBuffer(&more)
      fragments = buffer
      if frame.fin { deliver(context: context) }
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

  private func deliver(context: ChannelHandlerContext) {
    guard let buffer = fragments else { return }
    fragments = nil
    if fragmentsAreText {
      server.received(text: String(buffer: buffer), from: client, channel: context.channel)
    } else {
      // The real plugin JSON.parses binary messages too; bytes that are not JSON crash it.
      server.received(
        text: String(decoding: buffer.readableBytesView, as: UTF8.self), from: client, channel: context.channel)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    server.disconnected(client)
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    server.protocolError("websocket error \(error)", client: client, channel: context.channel)
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
