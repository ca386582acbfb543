import Foundation
import Logging
import PatchbayHub
import ServiceLifecycle
import Synchronization

/// The supervisor and router: starts every instance, tells systemd it is ready, and on graceful
/// shutdown (SIGTERM, SIGINT) stops every instance (stop, SIGTERM, SIGKILL by their deadlines).
/// The group stops it last, after the services that talk to it.
struct HubService: Service {
  let hub: Hub
  let logger: Logger
  /// Yields once the hub runs (reload waits for it); finishes either way.
  let started: AsyncStream<Void>.Continuation
  /// The config errors that kept the hub from starting, for the command's exit status.
  let failure: StartFailure

  func run() async throws {
    // SIGTERM while instances are still starting acts at once: the start gives up and the
    // stop below ends every instance by its deadlines.
    let outcome = await withGracefulShutdownHandler {
      await offPool { () -> ConfigErrors? in
        do throws(ConfigErrors) {
          try hub.start()
          return nil
        } catch {
          return error
        }
      }
    } onGracefulShutdown: {
      hub.abandonStart()
    }
    if let outcome {
      started.finish()
      failure.errors.withLock { $0 = outcome }
      throw outcome
    }
    started.yield()
    started.finish()
    if !hub.isStopping { SystemdNotifier.notify("READY=1\nSTATUS=running") }
    // Until SIGTERM or SIGINT (or another service ends the group).
    try? await gracefulShutdown()
    logger.notice("stopping")
    SystemdNotifier.notify("STOPPING=1")
    await offPool { hub.stop() }
  }
}

/// Where `HubService` leaves the reason the hub did not start.
final class StartFailure: Sendable {
  let errors = Mutex<ConfigErrors?>(nil)
}
