import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import PatchbayTestSupport
import Synchronization

/// A bare websocket client for tests: sends any text (also frames a good client never
/// sends) and records every text frame it receives.
final class TestWebSocketClient: Sendable {
  private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  private let channel: any Channel
  private let texts = ReceivedTexts()

  /// The text frames received so far, appended on the client's loop, read from the test.
  private final class ReceivedTexts: Sendable {
    private let texts = Mutex<[String]>([])
    var all: [String] { texts.withLock { $0 } }
    func record(_ text: String) { texts.withLock { $0.append(text) } }
  }

  init(port: Int) throws {
    let upgraded = group.next().makePromise(of: Void.self)
    let texts = self.texts
    let bootstrap = ClientBootstrap(group: group).channelInitializer { channel in
      channel.eventLoop.makeCompletedFuture {
        let upgrader = NIOTypedWebSocketClientUpgrader<Void>(upgradePipelineHandler: { channel, _ in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(Recorder(texts: texts))
          }
        })
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "127.0.0.1:\(port)")
        let configuration = NIOTypedHTTPClientUpgradeConfiguration<Void>(
          upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: headers),
          upgraders: [upgrader],
          notUpgradingCompletionHandler: { channel in
            channel.eventLoop.makeFailedFuture(ChannelError.inappropriateOperationForState)
          })
        try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
          configuration: .init(upgradeConfiguration: configuration)
        ).cascade(to: upgraded)
      }
    }
    channel = try bootstrap.connect(host: "127.0.0.1", port: port).wait()
    try upgraded.futureResult.wait()
  }

  func send(_ text: String, masked: Bool = true) {
    let frame = WebSocketFrame(
      fin: true, opcode: .text, maskKey: masked ? .random() : nil, data: channel.allocator.buffer(string: text))
    channel.writeAndFlush(frame, promise: nil)
  }

  /// Sends `text` as one message in `pieces` fragments (a text frame, then continuations);
  /// `maskLast: false` leaves the last fragment unmasked, as no good client does.
  func sendFragmented(_ text: String, pieces: Int, maskLast: Bool = true) {
    let bytes = Array(text.utf8)
    let size = (bytes.count + pieces - 1) / pieces
    let chunks = stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    for (index, chunk) in chunks.enumerated() {
      let last = index == chunks.count - 1
      let frame = WebSocketFrame(
        fin: last, opcode: index == 0 ? .text : .continuation, maskKey: last && !maskLast ? nil : .random(),
        data: channel.allocator.buffer(bytes: chunk))
      channel.writeAndFlush(frame, promise: nil)
    }
  }

  var received: [String] { texts.all }

  var isOpen: Bool { channel.isActive }

  func waitFor(_ what: String, within seconds: Double = 30, _ condition: ([String]) -> Bool) throws {
    try eventually("\(what); received: \(received)", within: seconds) { condition(received) }
  }

  /// Waits for a received frame containing `text`.
  func waitForFrame(containing text: String) throws {
    try waitFor("a frame containing \(text)") { $0.contains { $0.contains(text) } }
  }

  func close() {
    try? channel.close().wait()
    try? group.syncShutdownGracefully()
  }

  private final class Recorder: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    let texts: ReceivedTexts
    init(texts: ReceivedTexts) { self.texts = texts }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      let frame = unwrapInboundIn(data)
      if frame.opcode == .text { texts.record(String(buffer: frame.unmaskedData)) }
      if frame.opcode == .connectionClose { context.close(promise: nil) }
    }
  }
}
