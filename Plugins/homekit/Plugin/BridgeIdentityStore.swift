import Crypto
import Foundation
import HAP
import PatchbayPluginKit

/// The bridge's identity in the instance's state directory, every file mode 0600 and written
/// atomically (the kit's AtomicFile):
/// - `identity.json`: device id, the Ed25519 long-term secret key (base64 of its 32 raw bytes),
///   the setup code (generated once unless the config gives one) and setup id, the port;
/// - `pairings.json`: the controllers paired (`HAPPairingState`);
/// - `accessory-ids.json`: every aid and iid given out, the config number.
/// A missing file is created; a file that cannot be read is an error naming it, never replaced:
/// a new identity is a new bridge to every controller (rooms, scenes and automations lost).
struct BridgeIdentityStore: Sendable {
  struct Identity: Codable, Equatable, Sendable {
    var deviceID: String
    var signingKey: String
    var setupCode: String
    var setupID: String
    var port: Int?

    enum CodingKeys: String, CodingKey {
      case deviceID = "device_id"
      case signingKey = "signing_key"
      case setupCode = "setup_code"
      case setupID = "setup_id"
      case port
    }
  }

  /// A file of the store that exists but cannot be used.
  struct Corrupt: Error, CustomStringConvertible {
    var path: String
    var problem: String
    var description: String {
      "\(path) cannot be read (\(problem)); it is the bridge's identity, so it is not replaced with a new one "
        + "(every controller would have to pair again and Home would lose its rooms and automations). "
        + "Restore it from a backup, or run 'patchbay homekit reset INSTANCE' to start over as a new bridge"
    }
  }

  static let identityFile = "identity.json"
  static let pairingsFile = "pairings.json"
  static let identifiersFile = "accessory-ids.json"

  let directory: String

  var identityPath: String { directory + "/" + Self.identityFile }
  var pairingsPath: String { directory + "/" + Self.pairingsFile }
  var identifiersPath: String { directory + "/" + Self.identifiersFile }

  // MARK: Identity

  /// The stored identity, or a new one (stored at once) when there is none yet.
  func loadOrCreateIdentity() throws -> Identity {
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

  func save(_ identity: Identity) throws { try write(identity, to: identityPath) }

  static func accessoryIdentity(_ identity: Identity) throws -> HAPAccessoryIdentity {
    let key = try Curve25519.Signing.PrivateKey(rawRepresentation: Data(base64Encoded: identity.signingKey) ?? Data())
    return HAPAccessoryIdentity(deviceID: identity.deviceID, signingKey: key)
  }

  // MARK: Pairings

  func loadPairings() throws -> HAPPairingState { try read(HAPPairingState.self, from: pairingsPath) ?? .init() }
  func save(_ pairings: HAPPairingState) throws { try write(pairings, to: pairingsPath) }

  // MARK: Ids

  func loadIdentifiers() throws -> AccessoryIdentifiers {
    try read(AccessoryIdentifiers.self, from: identifiersPath) ?? AccessoryIdentifiers()
  }
  func save(_ identifiers: AccessoryIdentifiers) throws { try write(identifiers, to: identifiersPath) }

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
