import PatchbayValues

/// The extra keys a `GET /characteristics` asks for (`meta=1&perms=1&type=1&ev=1`).
public struct HAPReadFields: OptionSet, Sendable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
  public static let meta = HAPReadFields(rawValue: 1)
  public static let perms = HAPReadFields(rawValue: 2)
  public static let type = HAPReadFields(rawValue: 4)
  public static let ev = HAPReadFields(rawValue: 8)
}

/// One characteristic's answer to a read.
public struct HAPReadResult: Sendable {
  public var id: HAPCharacteristicID
  /// `.success` or an error (then no value).
  public var status: HAPStatus
  /// `.null` is allowed (ProgrammableSwitchEvent reads null).
  public var value: JSONValue?
  /// Extra keys asked for: "type", "perms", "format", "unit", "minValue", "maxValue", "minStep",
  /// "maxLen". The server adds "ev" itself: it knows the subscriptions.
  public var fields: [String: JSONValue]
  public init(id: HAPCharacteristicID, status: HAPStatus, value: JSONValue?, fields: [String: JSONValue] = [:]) {
    self.id = id
    self.status = status
    self.value = value
    self.fields = fields
  }
}

/// One item of `PUT /characteristics` that carries a value.
public struct HAPWrite: Sendable {
  public var id: HAPCharacteristicID
  /// As the controller sent it: validate it (-70410 if wrong).
  public var value: JSONValue
  /// "r": true, the controller wants the value back.
  public var wantsResponse: Bool
  /// Came with a valid `/prepare` pid within its ttl.
  public var isTimed: Bool
  public init(id: HAPCharacteristicID, value: JSONValue, wantsResponse: Bool = false, isTimed: Bool = false) {
    self.id = id
    self.value = value
    self.wantsResponse = wantsResponse
    self.isTimed = isTimed
  }
}

/// The accessory side's answer to one write.
public struct HAPWriteResult: Sendable {
  public var id: HAPCharacteristicID
  public var status: HAPStatus
  /// For "r": the value to answer with.
  public var value: JSONValue?
  public init(id: HAPCharacteristicID, status: HAPStatus, value: JSONValue? = nil) {
    self.id = id
    self.status = status
    self.value = value
  }
}

/// What the server asks of the accessory side (the bridge plugin implements it).
public protocol HAPAccessoryDelegate: AnyObject, Sendable {
  /// GET /accessories: {"accessories":[...]} exactly as sent.
  func accessoryDatabase() async -> JSONValue
  /// GET /characteristics: one result per id, in order.
  func readCharacteristics(_ ids: [HAPCharacteristicID], fields: HAPReadFields) async -> [HAPReadResult]
  /// PUT /characteristics items that carry a "value" (the server handles "ev" itself after
  /// asking `eventStatus`). `controller` is the pairing id of the writer's session.
  func writeCharacteristics(_ writes: [HAPWrite], controller: String) async -> [HAPWriteResult]
  /// Whether `id` may be subscribed to: .success, .notificationNotSupported, .resourceDoesNotExist.
  func eventStatus(_ id: HAPCharacteristicID) async -> HAPStatus
  /// POST /identify while unpaired.
  func identify() async
  /// The pairing state changed (pair-setup done, /pairings add or remove, a failed attempt
  /// counted): persist it (atomically, 0600) before this returns; throwing makes the server
  /// answer the controller with an error and keep the old state. Also where the plugin flips
  /// the mDNS TXT `sf`.
  func pairingStateChanged(_ state: HAPPairingState) async throws
}
