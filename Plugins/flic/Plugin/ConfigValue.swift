import Foundation

/// A JSON value of the instance config, keeping booleans apart from numbers (Foundation's
/// JSONSerialization bridges both to NSNumber on Linux).
enum ConfigValue: Decodable, Sendable {
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([ConfigValue])
  case table([String: ConfigValue])
  case null

  init(from decoder: Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let flag = try? container.decode(Bool.self) {
      self = .bool(flag)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let text = try? container.decode(String.self) {
      self = .string(text)
    } else if let list = try? container.decode([ConfigValue].self) {
      self = .array(list)
    } else {
      self = .table(try container.decode([String: ConfigValue].self))
    }
  }

  static func parse(_ json: String) -> ConfigValue? {
    try? JSONDecoder().decode(ConfigValue.self, from: Data(json.utf8))
  }
}
