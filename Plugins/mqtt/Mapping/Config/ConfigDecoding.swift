import PatchbayPluginKit

/// Any key of a config table, to list the keys a table really has.
struct AnyConfigKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) {
    self.stringValue = String(intValue)
    self.intValue = intValue
  }
}

extension Decoder {
  /// The dotted path of this table in the instance's config, with a trailing dot ("topics.0.").
  var keyPrefix: String {
    let path = codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    return path.isEmpty ? "" : path + "."
  }

  /// Refuses a key that is not one of `Keys`: a typo would otherwise be silently ignored.
  func refuseUnknownKeys<Keys: CodingKey & CaseIterable>(_: Keys.Type) throws {
    let known = Keys.allCases.map(\.stringValue)
    let container = try container(keyedBy: AnyConfigKey.self)
    for key in container.allKeys.map(\.stringValue).sorted() where !known.contains(key) {
      throw PluginError.unknownKey(key, known: known, path: keyPrefix)
    }
  }

  /// A config mistake at `key` of this table.
  func mistake(_ key: String, _ message: String) -> PluginError {
    .config("\(keyPrefix)\(key) \(message)")
  }
}
