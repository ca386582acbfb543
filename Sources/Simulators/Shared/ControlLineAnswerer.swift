import Foundation
import NIOCore

/// Answers each non-blank line of one connection, in order, off the event loop.
final class ControlLineAnswerer: ChannelInboundHandler {
  typealias InboundIn = String

  private let answer: @Sendable (String) -> String
  private let answered: @Sendable (String) -> Void
  private let queue = DispatchQueue(label: "simulator-control-connection")

  init(answer: @escaping @Sendable (String) -> String, answered: @escaping @Sendable (String) -> Void) {
    self.answer = answer
    self.answered = answered
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let line = unwrapInboundIn(data).trimmingCharacters(in: .whitespaces)
    guard !line.isEmpty else { return }
    let channel = context.channel
    let (answer, answered) = (self.answer, self.answered)
    queue.async {
      let text = answer(line)
      channel.writeAndFlush(ByteBuffer(string: text + "\n")).whenComplete { _ in answered(text) }
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}
