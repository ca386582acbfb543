import Foundation
import PatchbayTestSupport
import PatchbayValues
import Testing

/// Discovery through the real plugin: the hub runs in the network namespace of a private
/// avahi-daemon (its D-Bus system bus in the hub's environment), so the homekit instance
/// advertises `_hap._tcp` there; aiohomekit, in the peer namespace as another host on the link,
/// finds the bridge unpaired (sf=1), pairs at the address it found, sees sf=0, and after an
/// accessory is added and the config reloaded, a higher c#; once the last admin is removed, sf=1
/// again.
@Suite(
  .serialized,
  .disabled(if: AvahiUnderTest.unavailable != nil, "\(AvahiUnderTest.unavailable ?? ""): cannot run avahi-daemon"))
struct HomeKitDiscoveryEndToEndTests {
  static let lamp = HubTOML().accessory("Lamp", service: "switch")
  static let fan = HubTOML().accessory("Fan", service: "switch")

  @Test func aiohomekitDiscoversPairsThenSeesSfAndConfigNumberChange() throws {
    let python = try PythonEnvironment.prepared(PythonEnvironment.aiohomekit)
    let avahi = try AvahiUnderTest()
    let bridge = try HomeKitBridgeUnderTest(name: "Discovery Bridge", reservingPort: false)
    try bridge.writeConfig(accessories: Self.lamp, port: 51826)
    try bridge.start(environment: avahi.environment) { avahi.inResponderNamespace($0, $1) }
    let deviceID = try bridge.identity("device_id")
    let configNumber = try bridge.configNumber()

    // Unpaired: sf=1, at the responder's address and the configured port.
    let unpaired = try avahi.discoverWithAiohomekit(
      python, deviceID: deviceID, statusFlags: 1, configurationNumber: configNumber)
    #expect(unpaired.found, "aiohomekit did not find the unpaired bridge:\n\(unpaired.output)\nhub:\n\(bridge.hub.log)")
    let found = try #require(unpaired.last)
    #expect(found.name == "Discovery Bridge")
    #expect(found.address == avahi.responderAddress)
    #expect(found.port == 51826)
    #expect(found.ci == 2)
    #expect(found.md == "patchbay")

    // Pair where aiohomekit found it, from the other host.
    let controller = try AiohomekitController(host: found.address, port: found.port) { avahi.inPeerNamespace($0, $1) }
    let pairing = try controller.send(["cmd": "pair", "pin": try bridge.identity("setup_code")]).foundation
    let before = ListedAccessories(json: try controller.send(["cmd": "accessories"]))
    #expect(before.accessories.count == 2)
    let paired = try avahi.discoverWithAiohomekit(
      python, deviceID: deviceID, statusFlags: 0, configurationNumber: configNumber)
    #expect(paired.found, "aiohomekit did not see sf=0:\n\(paired.output)")
    try controller.send(["cmd": "close"])

    // An accessory more, and a reload: c# goes up, the pairing and every other id stay.
    try bridge.writeConfig(accessories: Self.lamp + Self.fan, port: 51826)
    let reload = try bridge.hub.cli("reload")
    #expect(reload.status == 0, "\(reload.output)")
    try eventually("c# to go up in accessory-ids.json; hub:\n\(bridge.hub.log)", within: 240) {
      (try? bridge.configNumber()) == configNumber + 1
    }
    try bridge.hub.waitUntilRunning("homekit")
    let changed = try avahi.discoverWithAiohomekit(
      python, deviceID: deviceID, statusFlags: 0, configurationNumber: configNumber + 1)
    #expect(changed.found, "aiohomekit did not see c# \(configNumber + 1):\n\(changed.output)\nhub:\n\(bridge.hub.log)")
    #expect(changed.last?.port == 51826)

    let again = try AiohomekitController(host: found.address, port: found.port) { avahi.inPeerNamespace($0, $1) }
    try again.send(["cmd": "load", "data": pairing])
    let after = ListedAccessories(json: try again.send(["cmd": "accessories"]))
    #expect(after.accessories.count == 3)
    #expect(Set(before.ids).isSubset(of: Set(after.ids)), "before: \(before.ids)\nafter: \(after.ids)")
    #expect(after.id("Fan", "25")?.first == 3)

    // Removing the last admin unpairs the bridge: discoverable again (sf=1), same c#.
    let adminID = try #require(pairing as? [String: Any])["iOSPairingId"] as? String ?? ""
    try again.send(["cmd": "remove_pairing", "id": adminID])
    let unpairedAgain = try avahi.discoverWithAiohomekit(
      python, deviceID: deviceID, statusFlags: 1, configurationNumber: configNumber + 1)
    #expect(unpairedAgain.found, "aiohomekit did not see sf=1 again:\n\(unpairedAgain.output)")
    try eventually("status shows the setup code again: \((try? bridge.hub.cli("status").output) ?? "")") {
      try bridge.hub.cli("status").output.contains("not paired")
    }
    print("aiohomekit transcript (discovery):\n\(controller.transcript)\n\(again.transcript)")
  }
}
