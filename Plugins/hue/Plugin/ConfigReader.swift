import HueProtocol
import PatchbayPluginKit
import PatchbayValues

/// Reads typed values out of one config table, naming `path + key` in every error.
struct ConfigReader {
  let table: [String: JSONValue]
  let path: String
  let known: [String]

  func refuseUnknownKeys() throws {
    for key in table.keys.sorted() where !known.contains(key) {
      throw PluginError.unknownKey(key, known: known, path: path)
    }
  }

  func string(_ key: String, required: Bool = false) throws -> String? {
    guard let value = table[key] else {
      if required { throw ConfigError("missing required key '\(path)\(key)'") }
      return nil
    }
    guard let text = value.stringValue else { throw ConfigError("\(path)\(key) must be a string") }
    return text
  }

  func bool(_ key: String) throws -> Bool? {
    guard let value = table[key] else { return nil }
    guard let flag = value.boolValue else { throw ConfigError("\(path)\(key) must be true or false") }
    return flag
  }

  func number(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
    guard let value = table[key] else { return nil }
    guard let number = value.numberValue else { throw ConfigError("\(path)\(key) must be a number") }
    guard range.contains(number) else {
      throw ConfigError("\(path)\(key) must be between \(range.lowerBound) and \(range.upperBound), not \(number)")
    }
    return number
  }

  func integer(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
    guard let value = table[key] else { return nil }
    guard let integer = value.integerValue else { throw ConfigError("\(path)\(key) must be an integer") }
    guard range.contains(integer) else {
      throw ConfigError("\(path)\(key) must be \(range.lowerBound)...\(range.upperBound), not \(integer)")
    }
    return integer
  }

  /// A bridge id: a string like "1" or a whole number.
  func identifier(_ key: String) throws -> String? {
    guard let value = table[key] else { return nil }
    guard let id = Self.identifier(value) else {
      throw ConfigError("\(path)\(key) must be a bridge id like \"1\" (digits), not \(value.text)")
    }
    return id
  }

  func identifiers(_ key: String) throws -> [String]? {
    guard let value = table[key] else { return nil }
    guard let list = value.arrayValue else {
      throw ConfigError("\(path)\(key) must be an array of light ids like [\"1\", \"2\"]")
    }
    var ids: [String] = []
    for (index, entry) in list.enumerated() {
      guard let id = Self.identifier(entry) else {
        throw ConfigError("\(path)\(key).\(index) must be a light id like \"1\" (digits), not \(entry.text)")
      }
      guard !ids.contains(id) else { throw ConfigError("\(path)\(key): light \(id) is listed twice") }
      ids.append(id)
    }
    return ids
  }

  func table(_ key: String) throws -> [String: JSONValue]? {
    guard let value = table[key] else { return nil }
    guard let members = value.objectValue else { throw ConfigError("\(path)\(key) must be a table") }
    return members
  }

  static func identifier(_ value: JSONValue) -> String? {
    if let integer = value.integerValue, integer >= 0 { return String(integer) }
    guard let text = value.stringValue, !text.isEmpty, text.count <= 8, text.allSatisfy(\.isASCII),
      text.allSatisfy(\.isNumber)
    else { return nil }
    return text
  }
}
