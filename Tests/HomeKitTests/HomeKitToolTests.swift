import ChildProcesses
import Foundation
import HAP
import HomeKitProtocol
import PatchbayTestSupport
import Testing

@testable import HomeKitPlugin

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay homekit setup|pairings|reset` (patchbay-homekit, started by the CLI with the
/// state directory from the config) on a bridge's state directory.
@Suite(.serialized) struct HomeKitToolTests {
  let hub: HubUnderTest
  let store: BridgeIdentityStore
  let identity: BridgeIdentityStore.Identity

  init() throws {
    hub = try HubUnderTest("patchbay-homekit-tool", plugins: ["homekit"])
    try hub.writeConfig(
      HubTOML()
        .instance("bridge", plugin: "homekit")
        .arrayTable("instances.bridge.accessories", ["name": "Lamp", "service": "switch"]))
    store = BridgeIdentityStore(directory: hub.stateDirectory + "/instances/bridge")
    identity = try store.loadOrCreateIdentity()
  }

  func homekit(_ arguments: String...) throws -> (status: Int32, output: String) {
    try runProgram(BuildProducts.executable("patchbay"), ["homekit"] + arguments + ["--config", hub.configPath])
  }

  static func pairing(_ id: String, admin: Bool) -> HAPPairing {
    HAPPairing(identifier: id, publicKey: Array(repeating: 1, count: 32), isAdmin: admin)
  }

  @Test func setupPrintsTheCodeAndAQRCode() throws {
    let result = try homekit("setup", "bridge")
    #expect(result.status == 0, "\(result.output)")
    #expect(result.output.contains("Setup code: \(identity.setupCode)"))
    let uri = hapSetupURI(code: HAPSetupCode(identity.setupCode)!, setupID: identity.setupID, category: .bridge)
    #expect(result.output.contains("Setup URI:  \(uri)"))
    #expect(uri.hasPrefix("X-HM://") && uri.count == 7 + 9 + 4)
    // The QR code: a square of half blocks, a quiet zone first.
    let qr = result.output.split(separator: "\n").filter { $0.contains("█") }
    #expect(qr.count >= 10)
    #expect(Set(qr.map(\.count)).count == 1)

    let unknown = try homekit("setup", "lamp")
    #expect(unknown.status == 1)
    #expect(unknown.output.contains("\(hub.configPath): no homekit instance 'lamp' (homekit instances: bridge)"))
  }

  @Test func pairingsListAndRemoveLastAdminUnpairs() throws {
    try store.save(HAPPairingState(pairings: [Self.pairing("phone", admin: true), Self.pairing("ipad", admin: false)]))
    let list = try homekit("pairings", "bridge")
    #expect(list.status == 0)
    #expect(list.output.contains("phone  admin"))
    #expect(list.output.contains("ipad  regular"))

    let removed = try homekit("pairings", "bridge", "--remove", "phone")
    #expect(removed.status == 0, "\(removed.output)")
    #expect(removed.output.contains("no admin left, so the bridge is unpaired"))
    #expect(try store.loadPairings() == HAPPairingState())
  }

  @Test func changesWaitForTheHubToStop() throws {
    try store.save(HAPPairingState(pairings: [Self.pairing("phone", admin: true)]))
    // A running hub holds hub.lock.
    let fd = open(hub.stateDirectory + "/hub.lock", O_RDWR | O_CREAT, 0o644)
    #expect(flock(fd, LOCK_EX) == 0)
    let refused = try homekit("reset", "bridge", "--yes")
    close(fd)
    #expect(refused.status != 0)
    #expect(refused.output.contains("a hub is running with the state directory"))
    #expect(try store.loadPairings().pairings.count == 1)
  }

  @Test func resetAsksThenForgetsPairingsWithANewDeviceID() throws {
    try store.save(HAPPairingState(pairings: [Self.pairing("phone", admin: true)], failedSetupAttempts: 3))
    let asked = try ChildProcess(
      BuildProducts.executable("patchbay"), ["homekit", "reset", "bridge", "--config", hub.configPath],
      keepInputOpen: true)
    try asked.write("no\n")
    try asked.closeInput()
    #expect(try asked.waitForExit() == 1)
    #expect(asked.output.contains("Type 'yes' to go on"))
    #expect(try store.loadPairings().pairings.count == 1)

    let reset = try homekit("reset", "bridge", "--yes")
    #expect(reset.status == 0, "\(reset.output)")
    #expect(try store.loadPairings() == HAPPairingState())
    let after = try #require(try store.loadIdentity())
    #expect(after.deviceID != identity.deviceID)
    #expect(after.setupCode == identity.setupCode)
    #expect(after.setupID == identity.setupID)
  }
}
