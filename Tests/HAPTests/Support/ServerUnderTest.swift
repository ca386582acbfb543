import HAP
import Logging
import NIOCore
import NIOPosix

/// A HAPServer on 127.0.0.1 in the test process, with the test accessories behind it.
final class ServerUnderTest: Sendable {
  static let code = HAPSetupCode("518-08-582")!

  let accessories = TestAccessories()
  let identity = HAPAccessoryIdentity.generate()
  let server: HAPServer
  let port: Int
  private let group: MultiThreadedEventLoopGroup

  init(pairingState: HAPPairingState = HAPPairingState(), maxConnections: Int = 32) async throws {
    group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    var logger = Logger(label: "hap-test")
    logger.logLevel = .info
    server = HAPServer(
      configuration: HAPServerConfiguration(
        identity: identity, setupCode: Self.code, pairingState: pairingState, host: "127.0.0.1", port: 0,
        maxConnections: maxConnections),
      delegate: accessories, group: group, logger: logger)
    port = try await server.start()
  }

  func stop() async {
    await server.stop()
    try? await group.shutdownGracefully()
  }
}
