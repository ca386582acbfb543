import Crypto
import HAP
import PatchbayPluginKit

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The bridge's identity in the instance's state directory, every file mode 0600 and written
/// atomically (the kit's AtomicFile):
/// - `identity.json`: device id, the Ed25519 long-term secret key (base64 of its 32 raw bytes),
///   the setup code (generated once unless the config gives one) and setup id, the port;
/// - `pairings.json`: the controllers paired (`HAPPairingState`);
/// - `accessory-ids.json`: every aid and iid given out, the config number;
/// - `written-values.json`: what controllers last wrote (so a hub restart does not undo it).
/// A missing file is created; a file that cannot be read is an error naming it, never replaced:
/// a new identity is a new bridge to every controller (rooms, scenes and automations lost).
package struct BridgeIdentityStore: Sendable {
  package struct Identity: Codable, Equatable, Sendable {
    package var deviceID: String
    package var signingKey: String
    package var setupCode: String
    package var setupID: String
    package var port: Int?

    enum CodingKeys: String, CodingKey {
      case deviceID = "device_id"
      case signingKey = "signing_key"
      case setupCode = "setup_code"
      case setupID = "setup_id"
      case port
    }
  }

  /// A file of the store that exists but cannot be used.
  package struct Corrupt: Error, CustomStringConvertible {
    var path: String
    var problem: String
    package var description: String {
      "\(path) cannot be read (\(problem)); it is the bridge's identity, so it is not replaced with a new one "
        + "(every controller would have to pair again and Home would lose its rooms and automations). "
        + "Restore it from a backup, or run 'patchbay homekit reset INSTANCE' to start over as a new bridge"
    }
  }

  package static let identityFile = "identity.json"
  package static let pairingsFile = "pairings.json"
  package static let identifiersFile = "accessory-ids.json"
  static let valuesFile = "written-values.json"

  package let directory: String

  package init(directory: String) { self.directory = directory }

  package var identityPath: String { directory + "/" + Self.identityFile }
  package var pairingsPath: String { directory + "/" + Self.pairingsFile }
  package var identifiersPath: String { directory + "/" + Self.identifiersFile }
  package var valuesPath: String { directory + "/" + Self.valuesFile }

  // MARK: Identity

  /// The stored identity, or a new one (stored at once) when there is none yet.
  package func loadOrCreateIdentity() throws -> Identity {
    if let stored = try read(Identity.self, from: identityPath) {
      guard let raw = Data(base64Encoded: stored.signingKey), raw.count == 32,
        (try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)) != nil
      else { throw Corrupt(path: identityPath, problem: "signing_key is not 32 bytes in base64") }
      guard HAPSetupCode(stored.setupCode) != nil else {
        throw Corrupt(path: identityPath, problem: "setup_code '\(stored.setupCode)' is not a valid setup code")
      }
      return stored
    }
    let generated = HAPAccessoryIdentity.generate()
    let identity = Identity(
      deviceID: generated.deviceID, signingKey: generated.signingKey.rawRepresentation.base64EncodedString(),
      setupCode: HAPSetupCode.generate().description, setupID: hapGenerateSetupID(), port: nil)
    try save(identity)
    return identity
  }

  /// The stored identity; nil before the bridge first started.
  package func loadIdentity() throws -> Identity? { try read(Identity.self, from: identityPath) }

  package func save(_ identity: Identity) throws { try write(identity, to: identityPath) }

  package static func accessoryIdentity(_ identity: Identity) throws -> HAPAccessoryIdentity {
    let key = try Curve25519.Signing.PrivateKey(rawRepresentation: Data(base64Encoded: identity.signingKey) ?? Data())
    return HAPAccessoryIdentity(deviceID: identity.deviceID, signingKey: key)
  }

  /// `patchbay homekit reset`: forgets every pairing and takes a new device id and key (to
  /// controllers, a new bridge), keeping the setup code, setup id, port and every aid/iid. Also
  /// the way out of a damaged identity or pairings file.
  package func startOver() throws -> Identity {
    let old = try? read(Identity.self, from: identityPath)
    let generated = HAPAccessoryIdentity.generate()
    let identity = Identity(
      deviceID: generated.deviceID, signingKey: generated.signingKey.rawRepresentation.base64EncodedString(),
      setupCode: old.map(\.setupCode).flatMap { HAPSetupCode($0) }?.description ?? HAPSetupCode.generate().description,
      setupID: old?.setupID ?? hapGenerateSetupID(), port: old?.port)
    try save(HAPPairingState())
    try save(identity)
    return identity
  }

  // MARK: Pairings

  package func loadPairings() throws -> HAPPairingState {
    try read(HAPPairingState.self, from: pairingsPath) ?? .init()
  }
  package func save(_ pairings: HAPPairingState) throws { try write(pairings, to: pairingsPath) }

  // MARK: Written values

  /// What controllers last wrote ("aid.iid" -> value); a damaged file only loses those values.
  package func loadWrittenValues() -> [HAPCharacteristicID: JSONValue] {
    guard let stored = try? read([String: JSONValue].self, from: valuesPath) else { return [:] }
    var values: [HAPCharacteristicID: JSONValue] = [:]
    for (key, value) in stored {
      let parts = key.split(separator: ".").compactMap { Int($0) }
      if parts.count == 2 { values[HAPCharacteristicID(aid: parts[0], iid: parts[1])] = value }
    }
    return values
  }

  package func saveWrittenValues(_ values: [HAPCharacteristicID: JSONValue]) throws {
    try write(
      Dictionary(uniqueKeysWithValues: values.map { ("\($0.key.aid).\($0.key.iid)", $0.value) }), to: valuesPath)
  }

  // MARK: Ids

  package func loadIdentifiers() throws -> AccessoryIdentifiers {
    try read(AccessoryIdentifiers.self, from: identifiersPath) ?? AccessoryIdentifiers()
  }
  package func save(_ identifiers: AccessoryIdentifiers) throws { try write(identifiers, to: identifiersPath) }

  // MARK: Files

  private func read<T: Decodable>(_ type: T.Type, from path: String) throws -> T? {
    AtomicFile.removeLeftovers(of: path)
    guard let data = FileManager.default.contents(atPath: path) else {
      if FileManager.default.fileExists(atPath: path) { throw Corrupt(path: path, problem: "it cannot be opened") }
      return nil
    }
    do {
      return try JSONDecoder().decode(T.self, from: data)
    } catch {
      throw Corrupt(path: path, problem: data.isEmpty ? "it is empty" : "it is not the JSON expected")
    }
  }

  private func write<T: Encodable>(_ value: T, to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try AtomicFile.write(Array(try encoder.encode(value)), to: path, mode: 0o600)
  }
}
