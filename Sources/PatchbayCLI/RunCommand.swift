import ArgumentParser
import CProcessControl
import Foundation
import Logging
import PatchbayHub
import ServiceLifecycle

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay run`: the daemon, in the foreground (systemd Type=notify). One lifecycle: a
/// `ServiceGroup` of the hub (supervisor and routes), the control socket, SIGHUP reloads and
/// the systemd watchdog. SIGTERM and SIGINT shut the group down gracefully: the services that
/// talk to the hub first, then the hub with each instance's stop, SIGTERM, SIGKILL deadlines.
struct RunCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run", abstract: "Run the hub in the foreground until SIGTERM or SIGINT; SIGHUP reloads.")

  @OptionGroup var options: ConfigOptions

  func run() async throws {
    let config = try options.load()
    // Refused rather than run without saving: retained values, positions, instances' state.
    if let problem = StateDirectoryCheck.problem(config.hub.stateDirectory) {
      printError("\(config.hub.stateDirectoryFile ?? options.config): hub.state_directory: \(problem)")
      throw ExitCode(1)
    }
    do {
      try StateDirectoryCheck.prepare(config.hub.stateDirectory)
    } catch {
      printError("\(config.hub.stateDirectoryFile ?? options.config): hub.state_directory: cannot create it: \(error)")
      throw ExitCode(1)
    }
    HubLogHandler.bootstrap(level: Logger.Level(rawValue: config.hub.logLevel) ?? .info)
    let logger = Logger(label: "hub")
    // One hub per state directory and control socket: a second one refuses before touching either.
    let lock: StateDirectoryLock
    do throws(ControlError) {
      lock = try StateDirectoryLock.acquire(config.hub.stateDirectory)
      if let problem = ControlSocketPath.problem(config.hub.controlSocket) { throw ControlError(problem) }
    } catch {
      printError(error.description)
      throw ExitCode(1)
    }
    defer { withExtendedLifetime(lock) {} }
    // A SIGHUP before reloading is set up must not end the hub (its default action would).
    signal(SIGHUP, SIG_IGN)
    // Whatever a plugin starts and its host cannot take down with it (the host was killed)
    // is reparented to the hub instead of init, so the supervisor can end it.
    _ = pc_become_subreaper()
    DescriptorLimit.raiseToHard()
    let hub = Hub(config: config)
    let configFile = options.config
    let (started, startedContinuation) = AsyncStream<Void>.makeStream()
    let failure = StartFailure()
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
      .init(service: HubService(hub: hub, logger: logger, started: startedContinuation, failure: failure)),
      .init(
        service: ControlService(
          server: ControlServer(path: config.hub.controlSocket, hub: hub) {
            ConfigReload.apply(to: hub, configFile: configFile)
          }, logger: Logger(label: "control"))),
      .init(service: ReloadService(hub: hub, configFile: configFile, logger: logger, started: started)),
    ]
    if let interval = SystemdNotifier.watchdogInterval {
      services.append(.init(service: WatchdogService(interval: interval)))
    }
    var groupLogger = Logger(label: "lifecycle")
    groupLogger.logLevel = .warning
    let group = ServiceGroup(
      configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: groupLogger))
    do {
      try await group.run()
    } catch {
      if let errors = failure.errors.withLock({ $0 }) {
        printError(errors.description)
        throw ExitCode(1)
      }
      throw error
    }
  }
}
