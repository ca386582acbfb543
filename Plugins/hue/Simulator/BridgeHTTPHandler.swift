import NIOCore
import NIOHTTP1

/// One HTTP connection to the bridge: collects each request, answers it from the
/// `SimulatedBridge` after its current latency; over `maxConcurrent` requests in progress
/// across all connections, answers 503 like an overloaded bridge.
final class BridgeHTTPHandler: ChannelInboundHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  let bridge: SimulatedBridge
  let concurrency: ConcurrencyGauge
  private var head: HTTPRequestHead?
  private var body: [UInt8] = []

  init(bridge: SimulatedBridge, concurrency: ConcurrencyGauge) {
    self.bridge = bridge
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

  /// A slow bridge works on the request only after the latency, so a client that gave up
  /// meanwhile cannot tell whether it was applied (like a real hanging bridge).
  private func respond(context: ChannelHandlerContext, head: HTTPRequestHead, body: [UInt8]) {
    let admitted = concurrency.enter()
    let channel = context.channel
    let answerAndWrite: @Sendable () -> Void = { [bridge, concurrency] in
      defer { concurrency.leave() }
      let path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "")
      let answer =
        admitted
        ? bridge.handle(method: head.method.rawValue, path: path, body: body)
        : SimulatedBridge.Answer(
          status: 503, body: "<html><body>503 Service Unavailable</body></html>", contentType: "text/html")
      Self.write(answer, version: head.version, keepAlive: head.isKeepAlive, on: channel)
    }
    let latency = bridge.latencyMilliseconds
    if latency > 0 {
      context.eventLoop.scheduleTask(in: .milliseconds(Int64(latency)), answerAndWrite)
    } else {
      answerAndWrite()
    }
  }

  private static func write(
    _ answer: SimulatedBridge.Answer, version: HTTPVersion, keepAlive: Bool, on channel: any Channel
  ) {
    var headers = HTTPHeaders()
    headers.add(name: "Content-Type", value: answer.contentType)
    headers.add(name: "Content-Length", value: "\(answer.body.utf8.count)")
    if !keepAlive { headers.add(name: "Connection", value: "close") }
    let head = HTTPResponseHead(
      version: version, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
    channel.write(HTTPServerResponsePart.head(head), promise: nil)
    channel.write(HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(string: answer.body))), promise: nil)
    channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in
      if !keepAlive { channel.close(promise: nil) }
    }
  }
}
