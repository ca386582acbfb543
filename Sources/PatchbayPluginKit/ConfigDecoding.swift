/// Any key of a config table, to list the keys a table really has.
public struct AnyConfigKey: CodingKey {
  public var stringValue: String
  public var intValue: Int?
  public init(_ name: String) { stringValue = name }
  public init(stringValue: String) { self.stringValue = stringValue }
  public init?(intValue: Int) {
    self.stringValue = String(intValue)
    self.intValue = intValue
  }
}

/// Helpers for a config type's `init(from:)` when it is decoded by `PluginContext.config(_:)`:
/// every mistake names its dotted key path, as the hub's own config errors do.
extension Decoder {
  /// The dotted path of this value in the instance's config ("topics.0"); empty at the top.
  public var keyPath: String { PluginContext.path(codingPath) }

  /// The dotted path of this table in the instance's config, with a trailing dot ("topics.0.").
  public var keyPrefix: String { keyPath.isEmpty ? "" : keyPath + "." }

  /// Refuses a key that is not one of `Keys`: a typo would otherwise be silently ignored. The
  /// error names the key, the closest known key ("did you mean") and the known keys.
  public func refuseUnknownKeys<Keys: CodingKey & CaseIterable>(_: Keys.Type) throws {
    let known = Keys.allCases.map(\.stringValue)
    let container = try container(keyedBy: AnyConfigKey.self)
    for key in container.allKeys.map(\.stringValue).sorted() where !known.contains(key) {
      throw PluginError.unknownKey(key, known: known, path: keyPrefix)
    }
  }

  /// A config mistake at `key` of this table: "groups.0.name must be ...".
  public func mistake(_ key: String, _ message: String) -> PluginError {
    .config("\(keyPrefix)\(key) \(message)")
  }
}

/// Values whose range or spelling `Decodable` cannot express, refused naming their key path.
extension KeyedDecodingContainer {
  /// A config mistake at `key` of this table: "groups.0.id must be ...".
  public func mistake(_ key: Key, _ message: String) -> PluginError {
    .config("\(PluginContext.path(codingPath + [key])) \(message)")
  }

  /// The number at `key` if given; outside `range` it is refused as
  /// "KEY must be between LOW and HIGH UNIT, not VALUE".
  public func decodeIfPresent(_: Double.Type, forKey key: Key, in range: ClosedRange<Double>, unit: String = "")
    throws -> Double?
  {
    guard let number = try decodeIfPresent(Double.self, forKey: key) else { return nil }
    guard range.contains(number) else {
      throw mistake(
        key,
        "must be between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound))\(unit), "
          + "not \(Self.format(number))")
    }
    return number
  }

  /// The whole number at `key` if given; outside `range` it is refused as
  /// "KEY must be LOW...HIGH UNIT, not VALUE".
  public func decodeIfPresent(_: Int.Type, forKey key: Key, in range: ClosedRange<Int>, unit: String = "")
    throws -> Int?
  {
    guard let integer = try decodeIfPresent(Int.self, forKey: key) else { return nil }
    guard range.contains(integer) else {
      throw mistake(key, "must be \(range.lowerBound)...\(range.upperBound)\(unit), not \(integer)")
    }
    return integer
  }

  /// One of a fixed set of words at `key` if given; another word is refused as
  /// `KEY must be "a" or "b", not "c"`.
  public func decodeChoiceIfPresent<T: RawRepresentable & CaseIterable>(_: T.Type, forKey key: Key) throws -> T?
  where T.RawValue == String {
    guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
    guard let choice = T(rawValue: text) else {
      var names = T.allCases.map { "\"\($0.rawValue)\"" }
      let last = names.popLast() ?? ""
      let listed = names.isEmpty ? last : names.joined(separator: ", ") + " or " + last
      throw mistake(key, "must be \(listed), not \"\(text)\"")
    }
    return choice
  }

  /// A number as a person writes it: at most two decimals, no ".0".
  static func format(_ number: Double) -> String {
    let rounded = (number * 100).rounded() / 100
    return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
  }
}
