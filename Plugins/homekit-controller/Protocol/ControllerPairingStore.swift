import Crypto
import HAP
import PatchbayPluginKit
import PatchbayValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// One homekit-controller instance's pairing, in its state directory, each file mode 0600 and
/// written atomically:
/// - `controller.json`: our controller identity (pairing id, Ed25519 secret key) and the
///   accessory's (device id, public key), with its name and last known address;
/// - `accessories.json`: the accessory's `/accessories` database as last read, so ports can be
///   declared at start before the accessory answers (and stay the same while it is away).
/// `patchbay homekit-controller pair` writes both; the plugin reads them and refreshes the cache
/// and the address. A damaged `controller.json` is an error naming it, never replaced: a new
/// identity would need the accessory to be reset and paired again.
package struct ControllerPairingStore: Sendable {
  package struct Pairing: Codable, Equatable, Sendable {
    /// Our pairing id (a UUID, upper case) and Ed25519 secret key (base64 of its 32 raw bytes).
    package var controllerID: String
    package var signingKey: String
    /// The accessory's device id ("XX:XX:XX:XX:XX:XX") and Ed25519 public key (base64).
    package var accessoryID: String
    package var accessoryKey: String
    /// Its mDNS name when it was paired (or last seen), and its address then.
    package var name: String
    package var host: String
    package var port: Int

    enum CodingKeys: String, CodingKey {
      case controllerID = "controller_id"
      case signingKey = "signing_key"
      case accessoryID = "accessory_id"
      case accessoryKey = "accessory_key"
      case name, host, port
    }

    package init(
      identity: HAPControllerIdentity, accessory: HAPPairedAccessory, name: String, host: String, port: Int
    ) {
      controllerID = identity.pairingID
      signingKey = identity.signingKey.rawRepresentation.base64EncodedString()
      accessoryID = accessory.pairingID
      accessoryKey = Data(accessory.publicKey).base64EncodedString()
      self.name = name
      self.host = host
      self.port = port
    }

    /// Our identity as the HAP controller needs it.
    package func identity() throws(Corrupt) -> HAPControllerIdentity {
      guard let raw = Data(base64Encoded: signingKey), raw.count == 32,
        let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)
      else { throw Corrupt(path: ControllerPairingStore.pairingFile, problem: "signing_key is not 32 bytes in base64") }
      return HAPControllerIdentity(pairingID: controllerID, signingKey: key)
    }

    /// The accessory as pair-verify checks it.
    package func accessory() throws(Corrupt) -> HAPPairedAccessory {
      guard let raw = Data(base64Encoded: accessoryKey), raw.count == 32 else {
        throw Corrupt(path: ControllerPairingStore.pairingFile, problem: "accessory_key is not 32 bytes in base64")
      }
      return HAPPairedAccessory(pairingID: accessoryID, publicKey: Array(raw))
    }
  }

  /// A file of the store that exists but cannot be used.
  package struct Corrupt: Error, CustomStringConvertible {
    package var path: String
    package var problem: String
    package var description: String {
      "\(path) cannot be read (\(problem)); it holds the pairing with the accessory, so it is not replaced. "
        + "Restore it from a backup, or reset the accessory and pair again "
        + "('patchbay homekit-controller pair INSTANCE --device ID --code XXX-XX-XXX')"
    }
  }

  package static let pairingFile = "controller.json"
  package static let accessoriesFile = "accessories.json"

  package let directory: String

  package init(directory: String) { self.directory = directory }

  package var pairingPath: String { directory + "/" + Self.pairingFile }
  package var accessoriesPath: String { directory + "/" + Self.accessoriesFile }

  /// The stored pairing; nil when the instance is not paired yet.
  package func loadPairing() throws(Corrupt) -> Pairing? {
    AtomicFile.removeLeftovers(of: pairingPath)
    guard let data = FileManager.default.contents(atPath: pairingPath) else {
      if FileManager.default.fileExists(atPath: pairingPath) {
        throw Corrupt(path: pairingPath, problem: "it cannot be opened")
      }
      return nil
    }
    let pairing: Pairing
    do {
      pairing = try JSONDecoder().decode(Pairing.self, from: data)
    } catch {
      throw Corrupt(path: pairingPath, problem: data.isEmpty ? "it is empty" : "it is not the JSON expected")
    }
    do {
      _ = try pairing.identity()
      _ = try pairing.accessory()
    } catch {
      throw Corrupt(path: pairingPath, problem: error.problem)
    }
    return pairing
  }

  package func save(_ pairing: Pairing) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try AtomicFile.write(Array(try encoder.encode(pairing)), to: pairingPath, mode: 0o600)
  }

  /// The accessory's new address (mDNS said it moved), kept for the next start.
  package func moved(to host: String, port: Int) throws {
    guard var pairing = try loadPairing(), pairing.host != host || pairing.port != port else { return }
    pairing.host = host
    pairing.port = port
    try save(pairing)
  }

  /// The cached `/accessories` answer (`{"accessories": [...]}`); nil when there is none or it
  /// cannot be read (it is only a cache: the accessory is asked again on connect).
  package func loadAccessories() -> JSONValue? {
    AtomicFile.removeLeftovers(of: accessoriesPath)
    guard let data = FileManager.default.contents(atPath: accessoriesPath),
      let database = JSONValue.parse(String(decoding: data, as: UTF8.self)),
      database["accessories"]?.arrayValue != nil
    else { return nil }
    return database
  }

  package func saveAccessories(_ database: JSONValue) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try AtomicFile.write(database.description, to: accessoriesPath, mode: 0o600)
  }

  /// Forgets the pairing and the cache (after unpairing, or when the accessory was reset).
  package func remove() throws {
    for path in [pairingPath, accessoriesPath] where FileManager.default.fileExists(atPath: path) {
      try FileManager.default.removeItem(atPath: path)
    }
  }
}
