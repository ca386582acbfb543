import Foundation
import PatchbayTestSupport
import PatchbayValues

/// A `homekit` instance (bridge "Bedroom", one lamp) in the WebHarness's hub, and aiohomekit
/// (PatchbayTestSupport's `AiohomekitController`) to pair with it.
struct HomeKitBridgeUnderTest {
  static let instance = "bedroom"

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
      extra: HubTOML()
        .instance(Self.instance, plugin: "homekit", ["name": "Bedroom", "port": .integer(reservation.port)])
        .accessory(of: Self.instance, "Lamp", service: "lightbulb"))
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

  /// Pairs aiohomekit with `code`: the controller, its pairing id.
  func pair(code: String) throws -> (controller: AiohomekitController, id: String) {
    let controller = try AiohomekitController(port: reservation.port)
    let answer = try controller.send(["cmd": "pair", "pin": code])
    guard let id = answer["iOSPairingId"]?.stringValue else { throw WebTestError("no pairing id in \(answer)") }
    return (controller, id)
  }
}
