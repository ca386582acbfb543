import FlicProtocol
import FlicdSimulator

extension FlicdServer {
  /// The flicd simulator in this process, started on `port` (0: one the system chooses) with
  /// `buttons` verified, its log dropped; a short `scanWizardTimeout` for the suites that run
  /// scan wizards to their end.
  static func started(
    port: Int = 0, buttons: [(BluetoothAddress, String)], scanWizardTimeout: Duration? = nil
  ) throws -> FlicdServer {
    var configuration = Configuration()
    configuration.port = port
    configuration.buttons = buttons
    if let scanWizardTimeout { configuration.scanWizardTimeout = scanWizardTimeout }
    let server = FlicdServer(configuration: configuration, log: EventLog(sink: { _ in }))
    try server.start()
    return server
  }
}
