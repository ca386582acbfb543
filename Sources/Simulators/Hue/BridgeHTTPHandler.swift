import NIOCore
import NIOHTTP1

/// One HTTP connection to the bridge: collects each request, answers it from the
/// `SimulatedBridge` after the configured latency; over `maxConcurrent` requests in progress
/// across all connections, answers 503 like an overloaded bridge.
final class BridgeHTTPHandler: ChannelInboundHandler, @unchecked Sendable {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  let bridge: SimulatedBridge
  let latency: TimeAmount
  let concurrency: ConcurrencyGauge
  private var head: HTTPRequestHead?
  private var body: [UInt8] = []

  init(bridge: SimulatedBridge, latency: TimeAmount, concurrency: ConcurrencyGauge) {
    self.bridge = bridge
    self.latency = latency
    self.concurrency = concurrency
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      self.head = head
      body = []
    case .body(var chunk):
      guard body.count < 1 << 20 else { return }
      body += chunk.readBytes(length: chunk.readableBytes) ?? []
    case .end:
      guard let head else { return }
      self.head = nil
      respond(context: context, head: head, body: body)
    }
  }

  private func respond(context: ChannelHandlerContext, head: HTTPRequestHead, body: [UInt8]) {
    let path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "")
    let answer: SimulatedBridge.Answer
    if concurrency.enter() {
      answer = bridge.handle(method: head.method.rawValue, path: path, body: body)
    } else {
      answer = SimulatedBridge.Answer(
        status: 503, body: "<html><body>503 Service Unavailable</body></html>", contentType: "text/html")
    }
    let keepAlive = head.isKeepAlive
    let channel = context.channel
    let write = { [concurrency] in
      concurrency.leave()
      var headers = HTTPHeaders()
      headers.add(name: "Content-Type", value: answer.contentType)
      headers.add(name: "Content-Length", value: "\(answer.body.utf8.count)")
      if !keepAlive { headers.add(name: "Connection", value: "close") }
      let responseHead = HTTPResponseHead(
        version: head.version, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
      channel.write(HTTPServerResponsePart.head(responseHead), promise: nil)
      channel.write(
        HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(string: answer.body))), promise: nil)
      channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in
        if !keepAlive { channel.close(promise: nil) }
      }
    }
    if latency > .zero {
      context.eventLoop.scheduleTask(in: latency, write)
    } else {
      write()
    }
  }
}
