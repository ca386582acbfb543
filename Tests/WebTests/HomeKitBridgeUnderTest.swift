import Foundation
import PatchbayTestSupport

/// A `homekit` instance (bridge "Bedroom", one lamp) in the WebHarness's hub, and aiohomekit
/// (through the HAP tests' driver script, Tests/HAPTests/Scripts/controller.py) to pair with it.
struct HomeKitBridgeUnderTest {
  static let instance = "bedroom"
  static let controllerScript = HubUnderTest.repositoryRoot + "/Tests/HAPTests/Scripts/controller.py"

  let harness: WebHarness
  /// The bridge's port, held for it (the sandbox grants a homekit instance its configured port).
  let reservation: PortReservation

  /// Starts the harness's hub with the bridge beside its probe.
  init(_ harness: WebHarness) throws {
    self.harness = harness
    reservation = try PortReservation()
    let plugins = harness.directory.path + "/plugins"
    try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: plugins + "/libpatchbay-plugin-homekit.so", withDestinationPath: BuildProducts.plugin("homekit"))
    try harness.startHub(
      extra: """
        [instances.\(Self.instance)]
        plugin = "homekit"
        name = "Bedroom"
        port = \(reservation.port)
        [[instances.\(Self.instance).accessories]]
        name = "Lamp"
        service = "lightbulb"
        """)
  }

  /// The setup code the bridge keeps (written at its first start).
  func setupCode() throws -> String {
    let path = harness.directory.path + "/state/instances/\(Self.instance)/identity.json"
    var code: String?
    try eventually("the bridge's identity at \(path)") {
      guard let data = FileManager.default.contents(atPath: path),
        let identity = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
      else { return false }
      code = identity["setup_code"] as? String
      return code != nil
    }
    return code!
  }

  /// Pairs aiohomekit with `code`; its pairing id. The controller process is returned so the
  /// caller ends it.
  func pair(code: String) throws -> (controller: ChildProcess, id: String) {
    let python = try PythonEnvironment.prepared(PythonEnvironment.aiohomekit)
    let controller = try ChildProcess(
      python.python, [Self.controllerScript, "127.0.0.1", String(reservation.port)], keepInputOpen: true)
    try controller.waitForLine(containing: "\"ready\"", within: 120)
    try controller.write(#"{"cmd": "pair", "pin": "\#(code)"}"# + "\n")
    var id: String?
    try eventually("aiohomekit paired; output:\n\(controller.output)", within: 120) {
      for line in controller.lines {
        guard let answer = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
        if answer["error"] != nil { throw WebTestError("pairing failed: \(line)") }
        id = (answer["ok"] as? [String: Any])?["iOSPairingId"] as? String
        if id != nil { return true }
      }
      return !controller.isRunning
    }
    guard let id else { throw WebTestError("aiohomekit exited:\n\(controller.output)") }
    return (controller, id)
  }
}
