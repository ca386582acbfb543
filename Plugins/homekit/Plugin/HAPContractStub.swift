// TEMPORARY: the public API of module HAP as /work/briefs/hap-contract.md gives it, so this
// plugin builds before the hap branch reaches main. Deleted by the merge that brings Sources/HAP.
import Crypto
import HAP
import Logging
import NIOCore
import PatchbayValues

public struct HAPCharacteristicID: Hashable, Sendable, Codable {
  public var aid: Int
  public var iid: Int
  public init(aid: Int, iid: Int) {
    self.aid = aid
    self.iid = iid
  }
}

public struct HAPPairing: Hashable, Sendable, Codable {
  public var identifier: String
  public var publicKey: [UInt8]
  public var isAdmin: Bool
  public init(identifier: String, publicKey: [UInt8], isAdmin: Bool) {
    self.identifier = identifier
    self.publicKey = publicKey
    self.isAdmin = isAdmin
  }
}

public struct HAPPairingState: Hashable, Sendable, Codable {
  public var pairings: [HAPPairing]
  public var failedSetupAttempts: Int
  public init(pairings: [HAPPairing] = [], failedSetupAttempts: Int = 0) {
    self.pairings = pairings
    self.failedSetupAttempts = failedSetupAttempts
  }
  public var isPaired: Bool { !pairings.isEmpty }
}

public struct HAPAccessoryIdentity: Sendable {
  public var deviceID: String
  public var signingKey: Curve25519.Signing.PrivateKey
  public init(deviceID: String, signingKey: Curve25519.Signing.PrivateKey) {
    self.deviceID = deviceID
    self.signingKey = signingKey
  }
  public static func generate() -> HAPAccessoryIdentity {
    let bytes = (0..<6).map { _ in UInt8.random(in: 0...255) }
    let id = bytes.map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }
    return HAPAccessoryIdentity(deviceID: id.joined(separator: ":"), signingKey: .init())
  }
}

public struct HAPSetupCode: Hashable, Sendable, CustomStringConvertible {
  public let description: String
  public init?(_ text: String) {
    guard Self.validationProblem(text) == nil else { return nil }
    description = text
  }
  public static func validationProblem(_ text: String) -> String? {
    let digits = text.filter(\.isNumber)
    let shape = text.count == 10 && Array(text)[3] == "-" && Array(text)[6] == "-" && digits.count == 8
    guard shape else { return "must be 8 digits written XXX-XX-XXX, not \"\(text)\"" }
    if Set(digits).count == 1 || digits == "12345678" || digits == "87654321" {
      return "\"\(text)\" is a code HomeKit forbids (all one digit, 123-45-678 and 876-54-321)"
    }
    return nil
  }
  public static func generate() -> HAPSetupCode {
    while true {
      let digits = (0..<8).map { _ in String(Int.random(in: 0...9)) }.joined()
      let text = "\(digits.prefix(3))-\(digits.dropFirst(3).prefix(2))-\(digits.suffix(3))"
      if let code = HAPSetupCode(text) { return code }
    }
  }
}

public enum HAPCategory: Int, Sendable {
  case other = 1, bridge = 2, fan = 3, garageDoorOpener = 4, lightbulb = 5, doorLock = 6, outlet = 7, `switch` = 8
  case sensor = 10, programmableSwitch = 15
}

public func hapGenerateSetupID() -> String {
  let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
  return String((0..<4).map { _ in alphabet.randomElement()! })
}

public struct HAPReadFields: OptionSet, Sendable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
  public static let meta = HAPReadFields(rawValue: 1)
  public static let perms = HAPReadFields(rawValue: 2)
  public static let type = HAPReadFields(rawValue: 4)
  public static let ev = HAPReadFields(rawValue: 8)
}

public struct HAPReadResult: Sendable {
  public var id: HAPCharacteristicID
  public var status: HAPStatus
  public var value: JSONValue?
  public var fields: [String: JSONValue]
  public init(id: HAPCharacteristicID, status: HAPStatus, value: JSONValue?, fields: [String: JSONValue]) {
    self.id = id
    self.status = status
    self.value = value
    self.fields = fields
  }
}

public struct HAPWrite: Sendable {
  public var id: HAPCharacteristicID
  public var value: JSONValue
  public var wantsResponse: Bool
  public var isTimed: Bool
  public init(id: HAPCharacteristicID, value: JSONValue, wantsResponse: Bool, isTimed: Bool) {
    self.id = id
    self.value = value
    self.wantsResponse = wantsResponse
    self.isTimed = isTimed
  }
}

public struct HAPWriteResult: Sendable {
  public var id: HAPCharacteristicID
  public var status: HAPStatus
  public var value: JSONValue?
  public init(id: HAPCharacteristicID, status: HAPStatus, value: JSONValue?) {
    self.id = id
    self.status = status
    self.value = value
  }
}

public protocol HAPAccessoryDelegate: AnyObject, Sendable {
  func accessoryDatabase() async -> JSONValue
  func readCharacteristics(_ ids: [HAPCharacteristicID], fields: HAPReadFields) async -> [HAPReadResult]
  func writeCharacteristics(_ writes: [HAPWrite], controller: String) async -> [HAPWriteResult]
  func eventStatus(_ id: HAPCharacteristicID) async -> HAPStatus
  func identify() async
  func pairingStateChanged(_ state: HAPPairingState) async throws
}

public struct HAPServerConfiguration: Sendable {
  public var identity: HAPAccessoryIdentity
  public var setupCode: HAPSetupCode
  public var pairingState: HAPPairingState
  public var host: String = "::"
  public var port: Int = 0
  public var maxConnections: Int = 32
  public init(
    identity: HAPAccessoryIdentity, setupCode: HAPSetupCode, pairingState: HAPPairingState, host: String = "::",
    port: Int = 0, maxConnections: Int = 32
  ) {
    self.identity = identity
    self.setupCode = setupCode
    self.pairingState = pairingState
    self.host = host
    self.port = port
    self.maxConnections = maxConnections
  }
}

public final class HAPServer: Sendable {
  struct NotYetMerged: Error, CustomStringConvertible {
    var description: String { "the HAP server is not in this build yet" }
  }
  public init(
    configuration: HAPServerConfiguration, delegate: HAPAccessoryDelegate, group: any EventLoopGroup, logger: Logger
  ) {}
  public func start() async throws -> Int { throw NotYetMerged() }
  public func notify(_ changes: [(HAPCharacteristicID, JSONValue)], immediately: Bool, except: String?) {}
  public var connectionCount: Int { 0 }
  public func stop() async {}
}

public func hapSetupURI(code: HAPSetupCode, setupID: String, category: HAPCategory) -> String {
  let digits = UInt64(code.description.filter(\.isNumber))!
  let payload = UInt64(category.rawValue) << 31 | 2 << 27 | digits
  let text = String(payload, radix: 36, uppercase: true)
  return "X-HM://" + String(repeating: "0", count: max(0, 9 - text.count)) + text + setupID
}
