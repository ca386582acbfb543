import Foundation
import PatchbayValues
import TOMLKit

/// Reads one TOML file into a JSON-shaped tree, or a diagnostic with line and column.
public enum TOMLDocument {
  /// `PATCHBAY_UNGUARDED_TOML=1` skips `TOMLTrapGuard`, so tests can make the real parser abort
  /// and check that the CLI's parser isolation reports it. Never set it otherwise.
  package static let unguarded = ProcessInfo.processInfo.environment["PATCHBAY_UNGUARDED_TOML"] == "1"

  public static func read(_ path: String) -> Result<JSONValue, ConfigDiagnostic> {
    guard let data = FileManager.default.contents(atPath: path) else {
      return .failure(ConfigDiagnostic(file: path, message: "cannot read the file: \(unreadableReason(path))"))
    }
    guard let text = String(data: data, encoding: .utf8) else {
      return .failure(ConfigDiagnostic(file: path, message: "the file is not UTF-8"))
    }
    return parse(text, file: path)
  }

  /// Whether `read` fails before parsing: the file cannot be opened or read.
  public static func cannotRead(_ path: String) -> Bool { FileManager.default.contents(atPath: path) == nil }

  /// Why `path` could not be read, in the system's words.
  package static func unreadableReason(_ path: String) -> String {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
      return "it is a directory"
    }
    let descriptor = open(path, O_RDONLY)
    if descriptor >= 0 {
      close(descriptor)
      return "read failed"
    }
    return String(cString: strerror(errno))
  }

  public static func parse(_ text: String, file: String) -> Result<JSONValue, ConfigDiagnostic> {
    if let trap = TOMLTrapGuard.firstTrap(in: text), !unguarded {
      return .failure(
        ConfigDiagnostic(
          file: file, line: trap.line, column: trap.column,
          message: "TOML syntax error: \(trap.problem), saw '\(trap.found.escaped(asASCII: true))'"))
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

  package static func convert(_ table: TOMLTable) -> JSONValue {
    .object(zip(table.keys, table.values).map { ($0, convert($1)) })
  }

  package static func convert(_ value: TOMLValue) -> JSONValue {
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

#if canImport(Glibc)
  import Glibc
#endif
