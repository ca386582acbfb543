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
  struct DuoCase: Decodable {
    struct Event: Decodable {
      let button: Int
      let timestamp: UInt64
      let kind: UInt8
      let doubleClickWasHold, nextUpWillBeDoubleClick, wasQueued, wasQueuedLast: Bool
      let gesture: UInt8
      let acceleration: [Int8]
    }
    let payload: String
    let parseError: Bool
    let counts: [UInt64]
    let events: [Event]
  }

  let source: String
  let chaskeyMAC: [MAC]
  let chaskeyBlock: [Block]
  let fullVerify: [FullVerify]
  let quickVerify: [QuickVerify]
  let factorySignature: [Signature]
  let duoEvents: [DuoCase]

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

  @Test func duoEventStreams() {
    #expect(vectors.duoEvents.count == 60)
    for v in vectors.duoEvents {
      var decoder = DuoEventDecoder()
      let payload = [UInt8](hex: v.payload)
      guard let events = try? decoder.decode(payload) else {
        // Shorter than one event: pyflic-ble returns nothing, this decoder refuses the packet.
        #expect(v.parseError || v.events.isEmpty, "payload \(v.payload) refused, pyflic-ble parsed it")
        continue
      }
      #expect(!v.parseError)
      #expect(decoder.eventCounts == v.counts, "payload \(v.payload)")
      #expect(events.count == v.events.count, "payload \(v.payload)")
      for (event, expected) in zip(events, v.events) {
        #expect(event.buttonIndex == expected.button)
        #expect(event.timestamp == expected.timestamp)
        #expect(event.kind.rawValue == expected.kind)
        #expect(event.doubleClickWasHold == expected.doubleClickWasHold)
        #expect(event.nextUpWillBeDoubleClick == expected.nextUpWillBeDoubleClick)
        #expect((event.gesture?.rawValue ?? 0) == expected.gesture)
        #expect([event.acceleration.0, event.acceleration.1, event.acceleration.2] == expected.acceleration)
        #expect(event.wasQueued == expected.wasQueued && event.wasQueuedLast == expected.wasQueuedLast)
      }
    }
  }
}
