import Foundation
import HomeKitControllerPlugin
import HomeKitControllerProtocol
import PatchbayTestSupport
import PatchbayValues
import Testing

/// The controller on a network with mDNS: HAP-python advertises itself with its own zeroconf
/// from another host on the link of a private avahi-daemon (AvahiUnderTest), as a real
/// accessory does. `discover` lists it; `pair --device ID` finds it by that record; the hub,
/// in the avahi-daemon's namespace, follows it when it comes back on another port, which only
/// its mDNS record says.
@Suite(
  .serialized,
  .disabled(if: AvahiUnderTest.unavailable != nil, "\(AvahiUnderTest.unavailable ?? ""): cannot run avahi-daemon"))
struct HomeKitControllerDiscoveryTests {
  static func config(probe: String) -> HubTOML {
    HubTOML()
      .instance("house", plugin: "homekit-controller", ["rename": ["lamp": "bedside"]])
      .probe(record: probe, ports: [.state("position", "integer")])
      .route(from: "house.blind.current_position", to: "probe.position")
  }

  @Test func discoverPairByDeviceIDAndFollowAMove() async throws {
    let avahi = try AvahiUnderTest()
    let accessory = try await HAPPythonAccessory.start(
      code: HomeKitControllerPluginTests.code, advertisedOn: avahi, port: 51830)
    let hub = try HubUnderTest("patchbay-hkc-mdns", plugins: ["homekit-controller", "example-swift"])
    let probe = hub.path + "/probe.jsonl"
    try hub.writeConfig(Self.config(probe: probe))
    let there: (String, [String]) -> (String, [String]) = { avahi.inResponderNamespace($0, $1) }

    // discover: HAP-python's row, not paired yet, at its address on the link.
    var listing = ""
    try eventually("discover to list HAP-python (\(accessory.deviceID)):\n\(listing)", within: 120, pollEvery: 1) {
      listing = try hub.cli(
        arguments: ["homekit-controller", "discover", "--seconds", "3"], environment: avahi.environment
      ).output
      return listing.contains(accessory.deviceID)
    }
    print(listing)
    let row = try #require(listing.split(separator: "\n").first { $0.contains(accessory.deviceID) })
    #expect(row.contains("Test Bridge") && row.contains("bridge"), "\(row)")
    #expect(row.contains("no") && row.contains("\(avahi.peerAddress):51830"), "\(row)")

    // pair by device id only: the tool finds the address by mDNS.
    let paired = try hub.cli(
      arguments: [
        "homekit-controller", "pair", "house", "--device", accessory.deviceID, "--code",
        HomeKitControllerPluginTests.code,
      ], environment: avahi.environment, launcher: there)
    print(paired.output)
    #expect(paired.status == 0 && paired.output.contains("verified: 6 accessories there"), "\(paired.output)")
    try eventually("discover to show it paired:\n\(listing)", within: 120, pollEvery: 1) {
      listing = try hub.cli(
        arguments: ["homekit-controller", "discover", "--seconds", "3"], environment: avahi.environment
      ).output
      return listing.split(separator: "\n").contains { $0.contains(accessory.deviceID) && $0.contains(" yes ") }
    }
    print(listing)

    // Renamed ports, and the window covering's readings as typed outputs.
    let ports = try hub.cli("plugins", "--ports").output
    for port in ["input house.bedside.light", "output house.bedside.state", "output house.blind.current_position"] {
      #expect(ports.contains(port), "\(port) in:\n\(ports)")
    }
    #expect(!ports.contains("house.lamp."), "renamed:\n\(ports)")

    try hub.start(environment: avahi.environment, launcher: there)
    try hub.waitUntilRunning("house", "probe")
    try eventually("connected to HAP-python; log:\n\(hub.log)") { hub.log.contains("connected to Test Bridge") }
    try eventually("the PEER column to say connected") {
      try hub.cli("status").output.split(separator: "\n").contains {
        $0.hasPrefix("house ") && $0.contains(" connected")
      }
    }
    print(try hub.cli("status").output)
    try await accessory.send(["cmd": "position", "value": 40])
    try eventually("the blind's position at the probe: \(HomeKitControllerPluginTests.recorded(probe))") {
      HomeKitControllerPluginTests.recorded(probe).contains {
        $0["port"] == .string("position") && $0["value"] == .integer(40)
      }
    }

    // HAP-python comes back on another port: the plugin finds it by its record, and the
    // light command made meanwhile arrives there.
    try accessory.stop()
    try eventually("the plugin to notice; log:\n\(hub.log)") { hub.log.contains("lost Test Bridge") }
    try hub.send("house.bedside.light", #"{"on":true,"brightness":30}"#)
    try await accessory.startAgain(port: 51831)
    try await accessory.waitForSetter("brightness", within: 120) { $0.doubleValue == 30 }
    #expect(hub.log.contains("is at \(avahi.peerAddress):51831"), "\(hub.log)")
    print(hub.log.split(separator: "\n").filter { $0.contains("[house]") }.joined(separator: "\n"))
    let store = ControllerPairingStore(directory: hub.stateDirectory + "/instances/house")
    #expect(try store.loadPairing()?.port == 51831, "the new port is kept for the next start")
    try hub.stop()
  }
}
