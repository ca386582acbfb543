import Logging
import PatchbayHub
import ServiceLifecycle

/// The control socket the CLI (and patchbay-web) talk to; closed before the hub stops.
struct ControlService: Service {
  let server: ControlServer
  let logger: Logger

  func run() async throws {
    do throws(ControlError) {
      try server.start()
    } catch {
      logger.error("\(error.description); `status`, `send` and `watch` will not reach this hub")
    }
    try? await gracefulShutdown()
    server.stop()
  }
}
