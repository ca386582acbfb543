import Crypto
import FlicBLEProtocol
import Foundation
import Testing

/// Vectors printed by Vectors/make_vectors.py from pyflic-ble's own crypto (pyflic_ble.security).
struct PyflicVectors: Decodable {
  struct MAC: Decodable { let key, data, tag: String; let direction: UInt32; let counter: UInt64 }
  struct Block: Decodable { let key, data, output: String }
  struct FullVerify: Decodable {
    let clientPrivateKey, buttonPrivateKey, clientPublicKey, buttonPublicKey, sharedSecret: String
    let variant, flags: UInt8
    let buttonRandom, clientRandom, fullVerifySecret, verifier, sessionKey, pairingKey: String
    let pairingID: UInt32
  }
  struct QuickVerify: Decodable { let pairingKey, clientRandom, buttonRandom, sessionKey: String; let flags: UInt8 }
  struct Signature: Decodable { let factoryPublicKey, message, signature: String; let variant: UInt8? }

  let source: String
  let chaskeyMAC: [MAC]
  let chaskeyBlock: [Block]
  let fullVerify: [FullVerify]
  let quickVerify: [QuickVerify]
  let factorySignature: [Signature]

  static let loaded: PyflicVectors = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Vectors/pyflic-ble-vectors.json")
    return try! JSONDecoder().decode(PyflicVectors.self, from: Data(contentsOf: url))
  }()
}

@Suite("pyflic-ble vectors")
struct PyflicVectorTests {
  let vectors = PyflicVectors.loaded

  @Test func chaskeyPacketTags() {
    #expect(vectors.chaskeyMAC.count == 10)
    for v in vectors.chaskeyMAC {
      let tag = ChaskeyKey([UInt8](hex: v.key)).tag(
        direction: PacketDirection(rawValue: v.direction)!, counter: v.counter, message: [UInt8](hex: v.data))
      #expect(tag.hex == v.tag, "length \(v.data.count / 2), counter \(v.counter)")
    }
  }

  @Test func chaskeyBlocks() {
    for v in vectors.chaskeyBlock {
      #expect(ChaskeyKey([UInt8](hex: v.key)).block([UInt8](hex: v.data)).hex == v.output)
    }
  }

  @Test func fullVerifyDerivation() throws {
    for v in vectors.fullVerify {
      let client = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](hex: v.clientPrivateKey))
      let button = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: [UInt8](hex: v.buttonPublicKey))
      let shared = try client.sharedSecretFromKeyAgreement(with: button).withUnsafeBytes { Array($0) }
      #expect(shared.hex == v.sharedSecret)
      let keys = FullVerifyKeys(
        sharedSecret: shared, variant: v.variant, buttonRandom: [UInt8](hex: v.buttonRandom),
        clientRandom: [UInt8](hex: v.clientRandom), flags: v.flags)
      #expect(keys.fullVerifySecret.hex == v.fullVerifySecret)
      #expect(keys.verifier.hex == v.verifier)
      #expect(keys.sessionKey.hex == v.sessionKey)
      #expect(keys.pairing == Pairing(identifier: v.pairingID, key: [UInt8](hex: v.pairingKey)))
    }
  }

  @Test func quickVerifySessionKey() {
    for v in vectors.quickVerify {
      let pairing = Pairing(identifier: 1, key: [UInt8](hex: v.pairingKey))
      let key = pairing.quickVerifySessionKey(
        clientRandom: [UInt8](hex: v.clientRandom), flags: v.flags, buttonRandom: [UInt8](hex: v.buttonRandom))
      #expect(key.hex == v.sessionKey)
    }
  }

  @Test func factorySignatureVariants() {
    for v in vectors.factorySignature {
      let trusted = TrustedFactoryKeys(testOnlyKeys: [[UInt8](hex: v.factoryPublicKey)])
      let variant = FactorySignature.variant(
        signature: [UInt8](hex: v.signature), message: [UInt8](hex: v.message), trustedKeys: trusted)
      #expect(variant != nil)
      #expect(variant == v.variant)
      // The real factory keys do not vouch for a test key's signature.
      #expect(
        FactorySignature.variant(
          signature: [UInt8](hex: v.signature), message: [UInt8](hex: v.message), trustedKeys: .shortcutLabs) == nil)
    }
  }
}
