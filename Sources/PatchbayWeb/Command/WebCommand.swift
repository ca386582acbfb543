import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import PatchbayHub
import PatchbayValues

/// `patchbay-web`: the dashboard and /metrics, a process of its own that reaches the hub only
/// through its control socket. It starts and serves whether or not the hub runs; the page says
/// when the hub is down and keeps retrying.
@main
struct WebCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "patchbay-web",
    abstract: "Serve the patchbay dashboard, its JSON API and Prometheus metrics over HTTP.")

  @Option(help: "Address and port to listen on; port 0 picks a free one (the chosen one is printed).")
  var listen: String = "127.0.0.1:8080"

  @Option(help: "Control socket of the hub.")
  var socket: String = Defaults.controlSocket

  @Option(
    help: "File holding the access token (required to listen on anything but loopback; optional on loopback).")
  var tokenFile: String?

  @Option(
    help: ArgumentHelp(
      "Folder of the dashboard's files (index.html, app.js, household.js, style.css).",
      discussion: "Default: ../share/patchbay/web beside the binary (/usr/share/patchbay/web when installed), "
        + "else the source tree it was built from."))
  var pageDirectory: String?

  @Option(
    help: ArgumentHelp(
      "The hub's main config file: its [recorder] table and state_directory say what the history keeps, and where.",
      discussion: "Without the default file the history is off."))
  var config: String?

  @Option(help: "Seconds one live-event stream lasts before the browser reconnects (and catches up).")
  var streamSeconds: Int = 60

  func run() async throws {
    let address: ListenAddress
    do {
      address = try ListenAddress(parsing: listen)
    } catch {
      throw ValidationError(error.description)
    }
    var token: AccessToken?
    if let tokenFile {
      do {
        token = try AccessToken(file: tokenFile)
      } catch {
        throw CommandFailure(error.description)
      }
    }
    guard address.isLoopback || token != nil else {
      throw ValidationError(
        "refusing to listen on \(address.host): an address other than loopback needs an access token "
          + "(--token-file FILE, a file holding a secret of at least 16 characters); see docs/web.md")
    }
    guard let directory = PageLocation.locate(explicit: pageDirectory) else {
      throw CommandFailure(
        "the dashboard's files (\(PageFiles.names.joined(separator: ", "))) are in none of: "
          + PageLocation.candidates(explicit: pageDirectory).joined(separator: ", ")
          + " (--page-directory DIR names their folder)")
    }
    let files: PageFiles
    do {
      files = try PageFiles(directory: directory)
    } catch {
      throw CommandFailure(error.description)
    }
    var logger = Logger(label: "patchbay-web")
    logger.logLevel = .info
    let hub = HubClient(socket: socket)
    let history = try HistorySetup.feed(explicitConfig: config, socket: socket, logger: logger)
    history?.recorder.start()
    let live = LiveValues(hub: hub, history: history)
    live.start()
    let access = AccessPolicy(token: token, listenHost: address.host, controlSocket: socket, logger: logger)
    let router = Router(context: WebRequestContext.self)
    router.add(middleware: AccessMiddleware(policy: access))
    PageRoutes(policy: access, files: files).register(on: router)
    APIRoutes(hub: hub, live: live, policy: access, streamLifetime: .seconds(max(1, streamSeconds)))
      .register(on: router)
    // The server's graceful shutdown waits for open responses; the event streams never end by
    // themselves, so they are ended at the signal (a dispatch source sees it beside the server's).
    let signals = [SIGTERM, SIGINT].map { number in
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { live.finishAll() }
      source.resume()
      return source
    }
    defer { signals.forEach { $0.cancel() } }
    HistoryRoutes(feed: history).register(on: router)
    MetricsRoutes(hub: hub, history: history).register(on: router)
    let app = Application(
      router: router,
      // Half-open requests (slowloris) are closed: the head must come within the idle time, the
      // rest of the request within RequestDeadlines.body.
      server: .http1(
        configuration: .init(
          additionalChannelHandlers: [RequestDeadlines()], idleTimeout: RequestDeadlines.header)),
      configuration: .init(
        address: .hostname(address.host, port: address.port), serverName: "patchbay-web",
        // Bounded: a flood of connections waits in the kernel's backlog, not in memory here.
        availableConnectionsDelegate: MaximumAvailableConnections(256)),
      onServerRunning: { channel in
        let port = channel.localAddress?.port ?? address.port
        // Tests and scripts read the chosen port from this line (port 0 binds a free one).
        let line =
          "patchbay-web listening on http://\(address.urlHost):\(port) (hub socket \(hub.socket), page files \(files.directory))\n"
        FileHandle.standardOutput.write(Data(line.utf8))
      },
      logger: logger)
    try await app.runService()
  }
}
