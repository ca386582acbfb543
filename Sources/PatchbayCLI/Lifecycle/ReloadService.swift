import Logging
import PatchbayHub
import ServiceLifecycle
import UnixSignals

/// SIGHUP: reload the config file, one reload at a time (the hub serialises them with
/// `patchbay reload` too). Reloading starts once the hub runs; a reload that waits on a slow
/// plugin waits on its own thread, never holding back the other services (the watchdog).
struct ReloadService: Service {
  let hub: Hub
  let configFile: String
  let logger: Logger
  let started: AsyncStream<Void>

  func run() async throws {
    // The trap first: a SIGHUP while the hub starts (ignored until now, see RunCommand) waits in
    // the sequence and is applied once the hub runs, instead of being lost (CoreRaceTests lost
    // one sent right after start on a loaded machine).
    let hangups = await UnixSignalsSequence(trapping: .sighup)
    // The group shuts services down one after the other, this one before the hub: a SIGTERM
    // while instances are still starting must not wait here for the start to end.
    let started = started
    let running = try? await cancelWhenGracefulShutdown { () async -> Bool in
      var ready = started.makeAsyncIterator()
      return await ready.next() != nil
    }
    guard running == true, !Task.isShuttingDownGracefully else { return }
    for await _ in hangups.cancelOnGracefulShutdown() {
      logger.notice("SIGHUP: reloading \(configFile)")
      let refused = await offPool { () -> ConfigErrors? in
        if case .failure(let errors) = ConfigReload.apply(to: hub, configFile: configFile) { return errors }
        return nil
      }
      // A reload that happens logs its summary itself (`Hub.applyReload`), once.
      if let refused { logger.error("reload refused; the running hub is unchanged:\n\(refused)") }
    }
  }
}
