import Foundation
import HAP
import HomeKitControllerPlugin
import HomeKitControllerProtocol
import PatchbayTestSupport
import PatchbayValues
import Testing

/// The pairing store on real files: 0600, round trip, a damaged file named and kept.
@Suite struct ControllerPairingStoreTests {
  @Test func aPairingRoundTripsAtMode0600() throws {
    let directory = try TemporaryDirectory("controller-store")
    let store = ControllerPairingStore(directory: directory.path + "/instances/lamp")
    #expect(try store.loadPairing() == nil)
    let identity = HAPControllerIdentity.generate()
    let accessory = HAPPairedAccessory(pairingID: "8A:A0:BF:71:32:B8", publicKey: Array(repeating: 7, count: 32))
    let pairing = ControllerPairingStore.Pairing(
      identity: identity, accessory: accessory, name: "Test Bridge", host: "198.18.0.1", port: 51827)
    try store.save(pairing)
    try store.saveAccessories(.object([("accessories", .array([]))]))
    for path in [store.pairingPath, store.accessoriesPath] {
      let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
      #expect(mode == 0o600)
    }
    let loaded = try #require(try store.loadPairing())
    #expect(loaded == pairing)
    #expect(try loaded.identity().publicKey == identity.publicKey)
    #expect(try loaded.accessory() == accessory)
    #expect(store.loadAccessories()?["accessories"]?.arrayValue?.isEmpty == true)
    try store.remove()
    #expect(try store.loadPairing() == nil)
    #expect(store.loadAccessories() == nil)
  }

  @Test func aDamagedPairingIsNamedAndKept() throws {
    let directory = try TemporaryDirectory("controller-store")
    let store = ControllerPairingStore(directory: directory.path)
    try "{\"controller_id\": 1".write(toFile: store.pairingPath, atomically: true, encoding: .utf8)
    #expect {
      try store.loadPairing()
    } throws: { error in
      "\(error)".contains(store.pairingPath) && "\(error)".contains("not the JSON expected")
    }
    #expect(FileManager.default.fileExists(atPath: store.pairingPath))
  }
}
