import PatchbayValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// How a port's values look on the wire: plain text (`true`, `21.5`, `ON`) or a value at a
/// path inside a JSON object. Decoding is lenient where that is unambiguous (`ON`, `on`, `1`
/// for a bool) and strict about everything else; encoding is exact.
public struct PayloadFormat: Sendable, Equatable {
  /// nil: plain text; otherwise the path of the value inside a JSON object.
  public var jsonPath: JSONPath?
  /// Whole JSON payload (`format = "json"` without a path): the value is the document itself.
  public var wholeJSON = false
  /// What a bool is published as, and read besides true/false/on/off/1/0.
  public var payloadOn = "true"
  public var payloadOff = "false"
  /// Whether on/off words were configured (then a JSON bool is written as the word too).
  public var customBoolWords = false
  /// What a trigger is published as (any payload reads as a trigger).
  public var triggerPayload = "trigger"
  /// Values outside are refused (integer and number ports).
  public var minimum: Double?
  public var maximum: Double?

  public init() {}

  // MARK: Reading

  /// The value of `type` in `payload`, or why there is none.
  public func decode(_ payload: [UInt8], as type: ValueType) throws(PayloadError) -> Value {
    guard let text = String(validating: payload, as: UTF8.self) else { throw PayloadError("payload is not UTF-8") }
    if type == .trigger { return .trigger }
    if jsonPath != nil || wholeJSON {
      guard let document = JSONValue.parse(text) else { throw PayloadError("payload is not JSON") }
      guard let jsonPath else { return try checked(decodeJSON(document, as: type)) }
      guard let leaf = jsonPath.value(in: document) else { throw PayloadError("no value at JSON path '\(jsonPath)'") }
      return try checked(decodeJSON(leaf, as: type))
    }
    return try checked(decodePlain(text, as: type))
  }

  func decodePlain(_ text: String, as type: ValueType) throws(PayloadError) -> Value {
    let trimmed = text.trimmingWhitespace
    switch type {
    case .trigger: return .trigger
    case .bool:
      guard let flag = boolWord(trimmed) else {
        throw PayloadError("'\(Self.excerpt(trimmed))' is not \(payloadOn) or \(payloadOff)")
      }
      return .bool(flag)
    case .integer:
      if let integer = Int64(trimmed) { return .integer(integer) }
      if let number = Double(trimmed), let integer = Int64(exactly: number) { return .integer(integer) }
      throw PayloadError("'\(Self.excerpt(trimmed))' is not an integer")
    case .number:
      guard let number = Double(trimmed), number.isFinite else {
        throw PayloadError("'\(Self.excerpt(trimmed))' is not a number")
      }
      return .number(number)
    case .text:
      guard text.utf8.count <= Value.maximumTextBytes else {
        throw PayloadError("text of \(text.utf8.count) bytes is longer than \(Value.maximumTextBytes)")
      }
      return .text(text)
    case .button:
      if let action = ButtonAction(name: trimmed) { return .button(ButtonEvent(action: action)) }
      fallthrough
    case .color, .light:
      guard let json = JSONValue.parse(trimmed) else {
        throw PayloadError("'\(Self.excerpt(trimmed))' is not a \(type.name) value (\(Value.example(for: type)))")
      }
      return try decodeJSON(json, as: type)
    }
  }

  func decodeJSON(_ json: JSONValue, as type: ValueType) throws(PayloadError) -> Value {
    switch (type, json) {
    case (.bool, .string(let word)):
      guard let flag = boolWord(word) else {
        throw PayloadError("'\(Self.excerpt(word))' is not \(payloadOn) or \(payloadOff)")
      }
      return .bool(flag)
    case (.bool, .integer(let number)) where number == 0 || number == 1: return .bool(number == 1)
    case (.integer, .string(let text)), (.number, .string(let text)): return try decodePlain(text, as: type)
    case (.text, .string(let text)): return try decodePlain(text, as: .text)
    case (.text, .null), (.text, .array), (.text, .object): break
    case (.text, _): return .text(json.description)
    case (.button, .string(let text)): return try decodePlain(text, as: .button)
    default: break
    }
    do {
      return try Value.fromJSON(json, as: type)
    } catch {
      throw PayloadError(error.description)
    }
  }

  func boolWord(_ word: String) -> Bool? {
    let lowered = word.lowercased()
    if lowered == payloadOn.lowercased() { return true }
    if lowered == payloadOff.lowercased() { return false }
    switch lowered {
    case "true", "on", "1": return true
    case "false", "off", "0": return false
    default: return nil
    }
  }

  func checked(_ value: Value) throws(PayloadError) -> Value {
    let number: Double
    switch value {
    case .integer(let integer): number = Double(integer)
    case .number(let double): number = double
    default: return value
    }
    if let minimum, number < minimum {
      throw PayloadError("\(value) is below the minimum \(JSONValue.number(minimum).description)")
    }
    if let maximum, number > maximum {
      throw PayloadError("\(value) is above the maximum \(JSONValue.number(maximum).description)")
    }
    return value
  }

  static func excerpt(_ text: String) -> String {
    text.count <= 40 ? text : String(text.prefix(40)) + "…"
  }

  // MARK: Writing

  /// The payload for `value`.
  public func encode(_ value: Value) -> [UInt8] {
    if let jsonPath { return Array(jsonPath.wrap(jsonLeaf(value)).description.utf8) }
    if wholeJSON { return Array(jsonLeaf(value).description.utf8) }
    switch value {
    case .trigger: return Array(triggerPayload.utf8)
    case .bool(let flag): return Array((flag ? payloadOn : payloadOff).utf8)
    case .text(let text): return Array(text.utf8)
    case .button(let button) where !button.queued: return Array(button.action.name.utf8)
    default: return Array(value.json.description.utf8)
    }
  }

  func jsonLeaf(_ value: Value) -> JSONValue {
    switch value {
    case .trigger: return .string(triggerPayload)
    case .bool(let flag) where customBoolWords: return .string(flag ? payloadOn : payloadOff)
    default: return value.json
    }
  }
}
