import ArgumentParser
import CProcessControl
import Dispatch
import Foundation
import Logging
import PatchbayHub

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay run`: the daemon, in the foreground (systemd Type=notify).
struct RunCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run", abstract: "Run the hub in the foreground until SIGTERM or SIGINT; SIGHUP reloads.")

  @OptionGroup var options: ConfigOptions

  func run() throws {
    let config = try options.load()
    HubLogHandler.bootstrap(level: Logger.Level(rawValue: config.hub.logLevel) ?? .info)
    let logger = Logger(label: "hub")
    // Whatever a plugin starts and its host cannot take down with it (the host was killed)
    // is reparented to the hub instead of init, so the supervisor can end it.
    _ = pc_become_subreaper()
    let hub = Hub(config: config)
    let configFile = options.config
    // Signals are taken over before anything starts: a SIGTERM that arrives while the hub is
    // starting must stop it afterwards, never be lost.
    let finished = DispatchSemaphore(value: 0)
    let signals = DispatchQueue(label: "patchbay.signals")
    var sources: [any DispatchSourceProtocol] = []
    // (A SIGHUP while starting is ignored; reloading starts with the hub running.)
    for number in [SIGTERM, SIGINT, SIGHUP] { signal(number, SIG_IGN) }
    for number in [SIGTERM, SIGINT] {
      let source = DispatchSource.makeSignalSource(signal: number, queue: signals)
      source.setEventHandler {
        logger.notice("\(number == SIGTERM ? "SIGTERM" : "SIGINT"): stopping")
        finished.signal()
      }
      source.resume()
      sources.append(source)
    }
    do throws(ConfigErrors) {
      try hub.start()
    } catch {
      printError(error.description)
      throw ExitCode(1)
    }
    let server = ControlServer(path: config.hub.controlSocket, hub: hub) {
      ConfigReload.apply(to: hub, configFile: configFile)
    }
    do throws(ControlError) {
      try server.start()
    } catch {
      logger.error("\(error.description); `status`, `send` and `watch` will not reach this hub")
    }
    let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: signals)
    hangup.setEventHandler {
      logger.notice("SIGHUP: reloading \(configFile)")
      // A reload that happens logs its summary itself (`Hub.applyReload`), once.
      if case .failure(let errors) = ConfigReload.apply(to: hub, configFile: configFile) {
        logger.error("reload refused; the running hub is unchanged:\n\(errors)")
      }
    }
    hangup.resume()
    sources.append(hangup)
    SystemdNotifier.notify("READY=1\nSTATUS=running")
    if let interval = SystemdNotifier.watchdogInterval {
      // Its own queue: a reload waiting on a slow plugin (on `signals`) must not hold back the
      // ping, or systemd kills the whole hub for one plugin. The ping says the hub is alive.
      let watchdog = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "patchbay.watchdog"))
      watchdog.schedule(deadline: .now() + interval, repeating: interval)
      watchdog.setEventHandler { SystemdNotifier.notify("WATCHDOG=1") }
      watchdog.resume()
      sources.append(watchdog)
    }
    finished.wait()
    SystemdNotifier.notify("STOPPING=1")
    server.stop()
    hub.stop()
    withExtendedLifetime(sources) {}
  }
}
