import Foundation
import HomeKitControllerPlugin
import HomeKitControllerProtocol
import PatchbayTestSupport
import PatchbayValues
import Testing

/// `patchbay homekit-controller` (the real programs) against HAP-python: a wrong code, a
/// pairing kept 0600, a second pairing refused, unpair removing it on the accessory's side.
@Suite(.serialized) struct HomeKitControllerToolTests {
  @Test func pairRefusalsAndUnpair() async throws {
    let accessory = try await HAPPythonAccessory.start(code: HomeKitControllerPluginTests.code)
    let hub = try HubUnderTest("patchbay-hkc-tool", plugins: ["homekit-controller"])
    try hub.writeConfig("[instances.house]\nplugin = \"homekit-controller\"\n")
    let address = "127.0.0.1:\(accessory.port)"
    // Not paired yet: valid, and check says how to pair.
    let unpairedCheck = try hub.check()
    #expect(unpairedCheck.status == 0, "\(unpairedCheck.output)")
    #expect(
      unpairedCheck.output.contains("warning:") && unpairedCheck.output.contains("not paired yet")
        && unpairedCheck.output.contains("patchbay homekit-controller pair house"), "\(unpairedCheck.output)")

    let wrong = try hub.cli(
      "homekit-controller", "pair", "house", "--device", accessory.deviceID, "--code", "111-22-333", "--address",
      address)
    #expect(wrong.status != 0 && wrong.output.contains("the setup code is wrong"), "\(wrong.output)")
    // A failure at run time, not a usage mistake: exit 1 and no usage lines (issue 45, item 7).
    #expect(wrong.status == 1 && !wrong.output.contains("Usage:"), "\(wrong.output)")
    let unknown = try hub.cli("homekit-controller", "pair", "attic", "--device", "X", "--code", "111-22-333")
    #expect(
      unknown.status != 0 && unknown.output.contains("no homekit-controller instance 'attic'"), "\(unknown.output)")

    let (output, controllerID) = try HomeKitControllerPluginTests.pair(accessory, hub: hub)
    print(output)
    #expect(output.contains("paired 'house' with"), "\(output)")
    #expect(output.contains("verified: 6 accessories there"), "\(output)")
    let store = ControllerPairingStore(directory: hub.stateDirectory + "/instances/house")
    for path in [store.pairingPath, store.accessoriesPath] {
      let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
      #expect(mode == 0o600, "\(path)")
    }
    let admins = try await accessory.send(["cmd": "pairings"])
    #expect(admins.objectValue?.keys.map { $0.uppercased() } == [controllerID.uppercased()], "\(admins)")

    // Renaming: a name given twice is refused by check, naming the key; an unknown one is a warning.
    try hub.writeConfig("[instances.house]\nplugin = \"homekit-controller\"\nrename = { lamp = \"plug\" }\n")
    let clash = try hub.check()
    #expect(
      clash.status != 0 && clash.output.contains("rename.lamp = 'plug' is the name of plug already"),
      "\(clash.output)")
    try hub.writeConfig("[instances.house]\nplugin = \"homekit-controller\"\nrename = { lamp = \"Bed Side\" }\n")
    let badName = try hub.check()
    #expect(badName.status != 0 && badName.output.contains("rename.lamp 'Bed Side' must be"), "\(badName.output)")
    try hub.writeConfig("[instances.house]\nplugin = \"homekit-controller\"\nrename = { lamp_2 = \"bedside\" }\n")
    let unknownName = try hub.check()
    #expect(
      unknownName.status == 0 && unknownName.output.contains("the accessory has no service named lamp_2"),
      "\(unknownName.output)")
    try hub.writeConfig("[instances.house]\nplugin = \"homekit-controller\"\n")

    let again = try hub.cli(
      "homekit-controller", "pair", "house", "--device", accessory.deviceID, "--code",
      HomeKitControllerPluginTests.code,
      "--address", address)
    #expect(
      again.status == 1 && again.output.contains("paired already") && !again.output.contains("Usage:"),
      "\(again.output)")

    let unpaired = try hub.cli("homekit-controller", "unpair", "house")
    print(unpaired.output)
    #expect(unpaired.status == 0 && unpaired.output.contains("unpaired 'house'"), "\(unpaired.output)")
    #expect(try store.loadPairing() == nil)
    // Removed on HAP-python's side before it answered the request.
    let left = try await accessory.send(["cmd": "pairings"])
    #expect(left.objectValue?.isEmpty == true, "\(left)")

    // discover browses mDNS through avahi-daemon: a table, or a clear word when none answers.
    let discovered = try hub.cli("homekit-controller", "discover", "--seconds", "1")
    #expect(discovered.status == 0, "\(discovered.output)")
    #expect(
      discovered.output.contains("DEVICE ID") || discovered.output.contains("no HomeKit accessory answered"),
      "\(discovered.output)")
  }
}
