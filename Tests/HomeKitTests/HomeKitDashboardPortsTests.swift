import Foundation
import HAP
import PatchbayTestSupport
import PatchbayValues
import Testing

/// The homekit instance's outputs for `patchbay status` and the dashboard, from a real hub with
/// a real controller (aiohomekit): `discovery` (the PEER column) says whether mDNS advertises the
/// bridge; `setup_payload` is the QR code's text while unpaired and empty once paired;
/// `pairings` lists the paired controllers.
@Suite(.serialized) struct HomeKitDashboardPortsTests {
  static let noResponder = "not advertised: no mDNS responder (install avahi-daemon)"

  let hub: HubUnderTest
  /// The bridge's port, held for it (the sandbox grants a homekit instance its configured port).
  let reservation: PortReservation

  init() throws {
    hub = try HubUnderTest("patchbay-homekit-panel", plugins: ["homekit"])
    reservation = try PortReservation()
  }

  func startHub(environment: [String: String]) throws {
    try hub.writeConfig(
      HubTOML()
        .instance("bedroom", plugin: "homekit", ["name": "Bedroom", "port": .integer(reservation.port)])
        .accessory(of: "bedroom", "Lamp", service: "lightbulb"))
    try hub.start(environment: environment)
    try hub.waitUntilRunning("bedroom")
  }

  /// The retained value of `bedroom.PORT` (a text), nil while there is none.
  func text(_ port: String) throws -> String? {
    let answer = try hub.request(["command": "values"])
    let entry = (answer["values"] as? [[String: Any]])?.first { $0["address"] as? String == "bedroom.\(port)" }
    guard let json = entry?["value"] as? String else { return nil }
    return try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) as? String
  }

  func peer() throws -> String? { try hub.instanceStatus("bedroom")?["peer"] as? String }

  /// The X-HM payload the stored identity's setup code and id make.
  func expectedPayload() throws -> (payload: String, code: String) {
    let data = try Data(contentsOf: URL(fileURLWithPath: hub.stateDirectory + "/instances/bedroom/identity.json"))
    let identity = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let stored = try #require(identity["setup_code"] as? String)
    let code = try #require(HAPSetupCode(stored))
    let setupID = try #require(identity["setup_id"] as? String)
    return (hapSetupURI(code: code, setupID: setupID, category: .bridge), code.description)
  }

  /// Pairs aiohomekit with the setup code; the controller's pairing id.
  func pair(code: String) throws -> (AiohomekitController, String) {
    let controller = try AiohomekitController(port: reservation.port)
    let answer = try controller.send(["cmd": "pair", "pin": code])
    return (controller, try #require(answer["iOSPairingId"]?.stringValue))
  }

  func expectPaired(with id: String) throws {
    try eventually("the payload gone and the pairing listed: \(String(describing: try? text("pairings")))") {
      try (text("setup_payload") ?? "").isEmpty && text("pairings")?.contains(id) == true
    }
    let list = try #require(try text("pairings"))
    let pairings = try #require(try JSONSerialization.jsonObject(with: Data(list.utf8)) as? [[String: Any]])
    #expect(pairings.count == 1)
    #expect(pairings.first?["id"] as? String == id)
    #expect(pairings.first?["admin"] as? Bool == true)
  }

  /// No system bus here (the address names a socket that does not exist): the PEER column says
  /// the bridge is not advertised and what to install, and stays so once paired.
  @Test func withoutAnMDNSResponderStatusSaysSoAndPairingClearsThePayload() throws {
    try startHub(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(hub.path)/no-such-bus"])
    try eventually("the PEER column: \(String(describing: try? peer()))") { try peer() == Self.noResponder }
    let table = try hub.cli("status").output
    #expect(table.contains(Self.noResponder), "\(table)")

    let (payload, code) = try expectedPayload()
    try eventually("the setup payload: \(String(describing: try? text("setup_payload")))") {
      try text("setup_payload") == payload
    }
    #expect(payload.hasPrefix("X-HM://") && payload.count == "X-HM://".count + 9 + 4)
    #expect(try text("pairings") == "[]")

    let (controller, id) = try pair(code: code)
    try expectPaired(with: id)
    #expect(try peer() == Self.noResponder)
    try controller.send(["cmd": "close"])
    #expect(try hub.stop() == 0)

    // A restart keeps the panel's view: still paired, no payload.
    try startHub(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(hub.path)/no-such-bus"])
    try expectPaired(with: id)
  }

  /// With avahi-daemon (a private one, on a bus of the test's own): advertised, unpaired, then paired.
  @Test(.enabled(if: AvahiUnderTest.unavailable == nil, "\(AvahiUnderTest.unavailable ?? "")"))
  func withAvahiStatusSaysAdvertisedUnpairedThenPaired() throws {
    let avahi = try AvahiUnderTest()
    try startHub(environment: avahi.environment)
    try eventually("advertised (unpaired): \(String(describing: try? peer()))\n\(hub.log)") {
      try peer() == "advertised (unpaired)"
    }
    #expect(try hub.cli("status").output.contains("advertised (unpaired)"))
    let (controller, id) = try pair(code: try expectedPayload().code)
    try expectPaired(with: id)
    try eventually("advertised (paired): \(String(describing: try? peer()))") { try peer() == "advertised (paired)" }
    try controller.send(["cmd": "close"])
    #expect(try hub.stop() == 0)
  }
}
