import ArgumentParser
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
      switch ConfigReload.apply(to: hub, configFile: configFile) {
      case .success(let summary): logger.notice("reloaded: \(summary)")
      case .failure(let errors): logger.error("reload refused; the running hub is unchanged:\(errors)")
      }
    }
    hangup.resume()
    sources.append(hangup)
    SystemdNotifier.notify("READY=1\nSTATUS=running")
    if let interval = SystemdNotifier.watchdogInterval {
      let watchdog = DispatchSource.makeTimerSource(queue: signals)
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
