#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension PluginContext {
  /// Decodes the instance's config into `type`. Unknown or mistyped keys become a
  /// `PluginError.config` that names the key path and what was expected.
  public func config<T: Decodable>(_ type: T.Type) throws -> T {
    try Self.decodeConfig(type, json: configJSON)
  }

  /// Decodes a config given as JSON text, with the errors of `config(_:)`; lets a plugin's
  /// tests check its config handling without a running host.
  public static func decodeConfig<T: Decodable>(_ type: T.Type, json: String) throws -> T {
    do {
      return try JSONDecoder().decode(T.self, from: Data(json.utf8))
    } catch let DecodingError.keyNotFound(key, context) {
      throw PluginError.config("missing required key '\(Self.path(context.codingPath + [key]))'")
    } catch let DecodingError.typeMismatch(_, context) where context.codingPath.isEmpty {
      throw PluginError.config("the config is not a table")
    } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
      throw PluginError.config("the config is not a table (not valid JSON)")
    } catch let DecodingError.typeMismatch(expected, context) {
      throw PluginError.config("key '\(Self.path(context.codingPath))' must be \(Self.describe(expected))")
    } catch let DecodingError.valueNotFound(expected, context) {
      throw PluginError.config("key '\(Self.path(context.codingPath))' must be \(Self.describe(expected))")
    } catch let DecodingError.dataCorrupted(context) {
      throw PluginError.config("key '\(Self.path(context.codingPath))': \(context.debugDescription)")
    } catch let error as PluginError {
      throw error
    } catch {
      throw PluginError.config("\(error)")
    }
  }

  static func path(_ keys: [CodingKey]) -> String {
    keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
  }

  static func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Bool.Type: "true or false"
    case is Int.Type, is Int64.Type, is UInt16.Type, is UInt32.Type, is Int32.Type: "an integer"
    case is Double.Type: "a number"
    case is [Any].Type: "an array"
    case is [String: Any].Type: "a table"
    default: "a \(type)"
    }
  }
}
