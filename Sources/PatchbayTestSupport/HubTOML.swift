/// A hub config (or an instance's part of one) in TOML, built table by table: the tests' set-ups
/// say only what differs (instances, routes, the settings under test) and the TOML syntax is
/// written here once. Keys keep the order they are given in.
public struct HubTOML: Sendable, CustomStringConvertible {
  /// A TOML value.
  public enum Value: Sendable, ExpressibleByStringInterpolation, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByFloatLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
  {
    case string(String)
    case integer(Int)
    case float(Double)
    case bool(Bool)
    case array([Value])
    /// `{ key = value, ... }`, keys in the order given (a literal `["name": "level", ...]`).
    case inlineTable([(String, Value)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .float(value) }
    public init(arrayLiteral elements: Value...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, Value)...) { self = .inlineTable(elements) }

    /// The value as TOML writes it.
    public var toml: String {
      switch self {
      case .string(let text): return Self.quoted(text)
      case .integer(let number): return String(number)
      case .float(let number): return String(number)
      case .bool(let flag): return flag ? "true" : "false"
      case .array(let elements): return "[" + elements.map(\.toml).joined(separator: ", ") + "]"
      case .inlineTable(let pairs):
        return "{ " + pairs.map { "\(Self.key($0.0)) = \($0.1.toml)" }.joined(separator: ", ") + " }"
      }
    }

    /// A key as TOML writes it: bare when it can be, else quoted (a scene's `"lights.hall.light"`
    /// is one key, not a dotted path).
    static func key(_ name: String) -> String {
      let bare = !name.isEmpty && name.unicodeScalars.allSatisfy { bareKeyCharacters.contains($0) }
      return bare ? name : quoted(name)
    }

    private static let bareKeyCharacters = Set(
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-".unicodeScalars)

    /// A TOML basic string: quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
      var result = "\""
      for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\t": result += "\\t"
        case "\r": result += "\\r"
        default:
          if scalar.value < 0x20 || scalar.value == 0x7F {
            result +=
              "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
              + String(scalar.value, radix: 16)
          } else {
            result.unicodeScalars.append(scalar)
          }
        }
      }
      return result + "\""
    }
  }

  private var blocks: [String] = []

  public init() {}

  /// Keys before any table (an instance's own settings, where a harness puts them under its table).
  public func keys(_ pairs: KeyValuePairs<String, Value>) -> HubTOML {
    adding(nil, pairs)
  }

  /// `[path]` with its keys.
  public func table(_ path: String, _ pairs: KeyValuePairs<String, Value> = [:]) -> HubTOML {
    adding("[\(path)]", pairs)
  }

  /// One more `[[path]]` element with its keys.
  public func arrayTable(_ path: String, _ pairs: KeyValuePairs<String, Value> = [:]) -> HubTOML {
    adding("[[\(path)]]", pairs)
  }

  /// The same three, with keys built up in code (in this order).
  public func keys(_ pairs: [(String, Value)]) -> HubTOML { adding(nil, [:], first: pairs) }

  public func table(_ path: String, _ pairs: [(String, Value)]) -> HubTOML {
    adding("[\(path)]", [:], first: pairs)
  }

  public func arrayTable(_ path: String, _ pairs: [(String, Value)]) -> HubTOML {
    adding("[[\(path)]]", [:], first: pairs)
  }

  /// `[instances.NAME]` running `plugin`, with its settings.
  public func instance(_ name: String, plugin: String, _ pairs: KeyValuePairs<String, Value> = [:]) -> HubTOML {
    adding("[instances.\(name)]", pairs, first: [("plugin", .string(plugin))])
  }

  /// One `[[routes]]` from a port to a port, with what else it says (transform, when, ...).
  public func route(from source: String, to target: String, _ pairs: KeyValuePairs<String, Value> = [:])
    -> HubTOML
  {
    adding("[[routes]]", pairs, first: [("from", .string(source)), ("to", .string(target))])
  }

  /// One `[[routes]]` for each pair, from the key's port to the value's.
  public func routes(_ pairs: KeyValuePairs<String, String>) -> HubTOML {
    pairs.reduce(self) { $0.route(from: $1.key, to: $1.value) }
  }

  /// `lhs`'s blocks, then `rhs`'s: a set-up's shared part and a test's own.
  public static func + (lhs: HubTOML, rhs: HubTOML) -> HubTOML {
    var copy = lhs
    copy.blocks += rhs.blocks
    return copy
  }

  /// TOML written by hand, for what the builder does not say (a comment, an odd layout under test).
  public func raw(_ text: String) -> HubTOML {
    var copy = self
    copy.blocks.append(text)
    return copy
  }

  /// The document: blocks apart by a blank line, ending in a newline.
  public var toml: String { blocks.map { $0 + "\n" }.joined(separator: "\n") }

  public var description: String { toml }

  private func adding(
    _ header: String?, _ pairs: KeyValuePairs<String, Value>, first: [(String, Value)] = []
  ) -> HubTOML {
    var lines = header.map { [$0] } ?? []
    for (key, value) in first + pairs.map({ ($0.key, $0.value) }) { lines.append("\(Value.key(key)) = \(value.toml)") }
    if lines.isEmpty { return self }
    var copy = self
    copy.blocks.append(lines.joined(separator: "\n"))
    return copy
  }
}
