import NIOCore
import NIOHTTP1
import NIOPosix

/// The bridge's HTTP listener.
enum BridgeServer {
  static func start(
    bridge: SimulatedBridge, host: String, port: Int, maxConcurrent: Int,
    group: any EventLoopGroup
  ) throws -> any Channel {
    let gauge = ConcurrencyGauge(limit: maxConcurrent)
    return try ServerBootstrap(group: group)
      .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.configureHTTPServerPipeline()
          try channel.pipeline.syncOperations.addHandler(
            BridgeHTTPHandler(bridge: bridge, concurrency: gauge))
        }
      }
      .bind(host: host, port: port).wait()
  }
}
