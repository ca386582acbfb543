import PatchbayValues

/// The `type` of an error entry in a bridge answer (CLIP v1).
public enum HueErrorType: Int, Sendable, CaseIterable {
  case unauthorizedUser = 1
  case invalidJSON = 2
  case resourceNotAvailable = 3
  case methodNotAvailable = 4
  case missingParameters = 5
  case parameterNotAvailable = 6
  case invalidValue = 7
  case parameterNotModifiable = 8
  case linkButtonNotPressed = 101
  case deviceIsOff = 201
  case groupTableFull = 301
  case internalError = 901
}

/// One error entry of an answer: `{"error":{"type":7,"address":"/lights/1/state/bri","description":"..."}}`.
public struct HueAPIError: Sendable, Hashable, Error, CustomStringConvertible {
  /// The raw type number (bridges send types this client does not know too).
  public var type: Int
  public var address: String
  public var detail: String

  public init(type: Int, address: String, detail: String) {
    self.type = type
    self.address = address
    self.detail = detail
  }

  public init(_ type: HueErrorType, address: String, detail: String) {
    self.init(type: type.rawValue, address: address, detail: detail)
  }

  public var known: HueErrorType? { HueErrorType(rawValue: type) }

  public var description: String { "error \(type) at \(address): \(detail)" }

  public var json: JSONValue {
    .sortedObject([
      "error": .sortedObject([
        "type": .integer(Int64(type)), "address": .string(address), "description": .string(detail),
      ])
    ])
  }
}
