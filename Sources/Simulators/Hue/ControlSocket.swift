import Foundation
import NIOCore
import NIOPosix

/// A Unix stream socket for control lines; each line gets one answer line.
enum ControlSocket {
  static func listen(at path: String, bridge: SimulatedBridge, group: any EventLoopGroup) throws -> any Channel {
    try ServerBootstrap(group: group)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(ControlLineReader(bridge: bridge))
        }
      }
      .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
  }
}

/// Splits a control connection into lines and answers each.
final class ControlLineReader: ChannelInboundHandler, @unchecked Sendable {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  let bridge: SimulatedBridge
  private var pending: [UInt8] = []

  init(bridge: SimulatedBridge) { self.bridge = bridge }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var buffer = unwrapInboundIn(data)
    pending += buffer.readBytes(length: buffer.readableBytes) ?? []
    guard pending.count < 64 * 1024 else {
      context.close(promise: nil)
      return
    }
    while let newline = pending.firstIndex(of: 0x0A) {
      let line = String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespaces)
      pending.removeSubrange(...newline)
      guard !line.isEmpty else { continue }
      let answer = ControlCommand.answer(line, bridge: bridge)
      context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: answer + "\n")), promise: nil)
    }
  }
}
