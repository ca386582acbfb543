import Foundation
import HAP
import HomeKitProtocol
import PatchbayTestSupport
import Testing

@testable import HomeKitPlugin

/// The identity in the state directory: created once, kept, mode 0600, and a damaged file is
/// an error naming it, never silently replaced by a new identity.
struct BridgeIdentityStoreTests {
  @Test func createdOnceKeptAndPrivate() throws {
    let directory = try TemporaryDirectory("homekit-store")
    let store = BridgeIdentityStore(directory: directory.path + "/state")
    let first = try store.loadOrCreateIdentity()
    #expect(first.deviceID.count == 17)
    #expect(HAPSetupCode(first.setupCode) != nil)
    #expect(first.setupID.count == 4)
    let again = try store.loadOrCreateIdentity()
    #expect(again == first)
    try store.save(
      HAPPairingState(pairings: [HAPPairing(identifier: "c1", publicKey: Array(repeating: 7, count: 32), isAdmin: true)]
      ))
    #expect(try store.loadPairings().pairings.map(\.identifier) == ["c1"])
    for path in [store.identityPath, store.pairingsPath] {
      let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
      #expect(mode == 0o600, "\(path)")
    }
    let key = try BridgeIdentityStore.accessoryIdentity(first)
    #expect(key.deviceID == first.deviceID)
  }

  @Test(arguments: [
    (BridgeIdentityStore.identityFile, "{\"device_id\": "),
    (BridgeIdentityStore.identityFile, ""),
    (
      BridgeIdentityStore.identityFile,
      #"{"device_id": "AA:BB:CC:DD:EE:FF", "signing_key": "c2hvcnQ=", "setup_code": "031-45-154", "setup_id": "ABCD"}"#
    ),
    (BridgeIdentityStore.pairingsFile, "[1, 2"),
    (BridgeIdentityStore.identifiersFile, "not json"),
  ])
  func corruptFileIsAnErrorNamingIt(file: String, content: String) throws {
    let directory = try TemporaryDirectory("homekit-store")
    let store = BridgeIdentityStore(directory: directory.path)
    let original = try store.loadOrCreateIdentity()
    let path = try directory.write(file, content)
    #expect {
      _ = try store.loadOrCreateIdentity()
      _ = try store.loadPairings()
      _ = try store.loadIdentifiers()
    } throws: { error in
      "\(error)".contains(path) && "\(error)".contains("not replaced")
    }
    // Nothing was replaced.
    #expect(try String(contentsOfFile: path, encoding: .utf8) == content)
    if file != BridgeIdentityStore.identityFile { #expect(try store.loadOrCreateIdentity() == original) }
  }
}
