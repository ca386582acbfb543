import Foundation
import NIOCore
import NIOPosix

/// A Unix stream socket that takes control lines (`press 80:e4:da:71:b6:8e single`) and
/// answers each with one line: the command's answer or `error: ...`.
final class ControlSocket: @unchecked Sendable {
  private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  private var channel: Channel?
  let path: String

  init(path: String, server: FlicdServer, onQuit: @escaping @Sendable () -> Void) throws {
    self.path = path
    channel = try ServerBootstrap(group: group)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(ControlLineHandler(server: server, onQuit: onQuit))
        }
      }
      .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
  }

  func close() {
    try? channel?.close().wait()
    try? group.syncShutdownGracefully()
    try? FileManager.default.removeItem(atPath: path)
  }
}

/// Splits a control connection into lines and runs them in order, off the event loop (a
/// `sleep` or `wait-channel` may block).
final class ControlLineHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer

  let server: FlicdServer
  let onQuit: @Sendable () -> Void
  let queue = DispatchQueue(label: "flicd-control")
  var pending: [UInt8] = []

  init(server: FlicdServer, onQuit: @escaping @Sendable () -> Void) {
    self.server = server
    self.onQuit = onQuit
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var buffer = unwrapInboundIn(data)
    pending += buffer.readBytes(length: buffer.readableBytes) ?? []
    while let newline = pending.firstIndex(of: 0x0A) {
      let line = String(decoding: pending[..<newline], as: UTF8.self)
      pending.removeSubrange(...newline)
      let channel = context.channel
      let server = self.server
      let onQuit = self.onQuit
      queue.async {
        let answer: String
        do {
          answer = try server.perform(line)
        } catch {
          answer = "error: \(error)"
        }
        channel.writeAndFlush(ByteBuffer(string: answer + "\n")).whenComplete { _ in
          if answer == "bye" { onQuit() }
        }
      }
    }
    if pending.count > 65536 { context.close(promise: nil) }
  }
}
