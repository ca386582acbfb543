import Foundation
import NIOCore
import NIOPosix

/// A simulator's control socket: a Unix stream socket that takes one command per line and
/// writes each line's answer followed by a newline. One server for every simulator; each
/// supplies only how to answer a line (`socat - UNIX-CONNECT:PATH` works as a console).
public final class ControlLineServer: Sendable {
  public let path: String
  private let channel: any Channel

  /// Binds `path` (replacing a stale socket file). `answer` runs on a serial queue of the
  /// connection: a line may block (a `sleep`, a wait for a client) without stalling the event
  /// loop, and answers keep the order of their lines. `answered` runs once an answer is
  /// written (a `quit` ends the simulator only after saying `bye`).
  public init(
    path: String, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    answer: @escaping @Sendable (String) -> String, answered: @escaping @Sendable (String) -> Void = { _ in }
  ) throws {
    self.path = path
    channel = try ServerBootstrap(group: group)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(ControlLineDecoder()))
          try channel.pipeline.syncOperations.addHandler(ControlLineAnswerer(answer: answer, answered: answered))
        }
      }
      .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
  }

  /// Stops listening and removes the socket file.
  public func close() {
    try? channel.close().wait()
    try? FileManager.default.removeItem(atPath: path)
  }
}
