import Foundation
import NIOCore
import NIOPosix

/// A Unix socket that takes control commands, one per line, and answers each with its
/// result lines followed by an empty line (`socat - UNIX-CONNECT:PATH` works as a console).
enum ControlSocket {
  static func listen(at path: String, server: HomebridgeServer) throws -> any Channel {
    try ServerBootstrap(group: server.group)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(ControlLineHandler(server: server))
        }
      }
      .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true)
      .wait()
  }
}

final class ControlLineHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let server: HomebridgeServer
  private var pending = ""

  init(server: HomebridgeServer) { self.server = server }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    pending += String(buffer: unwrapInboundIn(data))
    guard pending.utf8.count < 64 * 1024 else {
      context.close(promise: nil)
      return
    }
    while let newline = pending.firstIndex(of: "\n") {
      let line = String(pending[..<newline]).trimmingCharacters(in: .whitespacesAndNewlines)
      pending = String(pending[pending.index(after: newline)...])
      guard !line.isEmpty else { continue }
      let channel = context.channel
      server.control(line).whenSuccess { lines in
        channel.writeAndFlush(channel.allocator.buffer(string: lines.joined(separator: "\n") + "\n\n"), promise: nil)
      }
    }
  }
}
