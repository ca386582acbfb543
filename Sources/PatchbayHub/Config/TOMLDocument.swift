import Foundation
import PatchbayValues
import TOMLKit

/// Reads one TOML file into a JSON-shaped tree, or a diagnostic with line and column.
enum TOMLDocument {
  static func read(_ path: String) -> Result<JSONValue, ConfigDiagnostic> {
    guard let data = FileManager.default.contents(atPath: path) else {
      return .failure(ConfigDiagnostic(file: path, message: "cannot read the file"))
    }
    guard let text = String(data: data, encoding: .utf8) else {
      return .failure(ConfigDiagnostic(file: path, message: "the file is not UTF-8"))
    }
    return parse(text, file: path)
  }

  static func parse(_ text: String, file: String) -> Result<JSONValue, ConfigDiagnostic> {
    if let header = TableHeaderGuard.firstMalformedHeader(in: text) {
      return .failure(
        ConfigDiagnostic(
          file: file, line: header.line, column: header.column,
          message:
            "TOML syntax error: a table header must start with a key (letters, digits, _ or -, or a quoted key),"
            + " saw '\(header.found.escaped(asASCII: true))'"))
    }
    do {
      let table = try TOMLTable(string: text)
      return .success(convert(table))
    } catch let error as TOMLParseError {
      return .failure(
        ConfigDiagnostic(
          file: file, line: error.source.begin.line, column: error.source.begin.column,
          message: "TOML syntax error: \(error.description)"))
    } catch {
      return .failure(ConfigDiagnostic(file: file, message: "TOML syntax error: \(error)"))
    }
  }

  static func convert(_ table: TOMLTable) -> JSONValue {
    .object(zip(table.keys, table.values).map { ($0, convert($1)) })
  }

  static func convert(_ value: TOMLValue) -> JSONValue {
    switch value.type {
    case .table: return value.table.map(convert) ?? .null
    case .array: return .array(value.array.map { $0.map { convert($0.tomlValue) } } ?? [])
    case .string: return .string(value.string ?? "")
    case .int: return .integer(Int64(value.int ?? 0))
    case .double: return .number(value.double ?? 0)
    case .bool: return .bool(value.bool ?? false)
    default: return .string(value.debugDescription)
    }
  }
}
