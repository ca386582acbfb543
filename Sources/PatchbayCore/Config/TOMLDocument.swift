import Foundation
import PatchbayValues
import TOMLKit

/// Reads one TOML file into a JSON-shaped tree, or a diagnostic with line and column.
public enum TOMLDocument {
  /// `PATCHBAY_UNGUARDED_TOML=1` skips `TOMLTrapGuard`, so tests can make the real parser abort
  /// and check that the CLI's parser isolation reports it. Never set it otherwise.
  package static let unguarded = ProcessInfo.processInfo.environment["PATCHBAY_UNGUARDED_TOML"] == "1"

  public static func read(_ path: String) -> Result<JSONValue, ConfigDiagnostic> {
    if let kind = specialFileKind(path) {
      return .failure(
        ConfigDiagnostic(
          file: path, message: "not a regular file (it is \(kind)): only regular files are read as config"))
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      return .failure(ConfigDiagnostic(file: path, message: "cannot read the file: \(unreadableReason(path))"))
    }
    guard let text = String(data: data, encoding: .utf8) else {
      return .failure(ConfigDiagnostic(file: path, message: "the file is not UTF-8"))
    }
    return parse(text, file: path)
  }

  /// Whether `read` fails before parsing: the file cannot be opened or read.
  public static func cannotRead(_ path: String) -> Bool {
    specialFileKind(path) != nil || FileManager.default.contents(atPath: path) == nil
  }

  /// What `path` is when it is neither a regular file nor a directory (a FIFO would block the
  /// reader until someone writes to it): "a FIFO", "a socket", "a device"; nil otherwise.
  public static func specialFileKind(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    switch info.st_mode & S_IFMT {
    case S_IFREG, S_IFDIR: return nil
    case S_IFIFO: return "a FIFO"
    case S_IFSOCK: return "a socket"
    default: return "a device"
    }
  }

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
    // toml++ hands keys and strings over as C strings: a NUL would cut `"a\u0000b"` to `a`.
    if let (line, column) = firstEscapedNUL(in: text) {
      return .failure(
        ConfigDiagnostic(
          file: file, line: line, column: column,
          message: "a NUL character (\\u0000) cannot be used in a config: names are a-z, 0-9 and _,"
            + " and text may hold any character but NUL"))
    }
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

  /// Line and column of the first `\u0000` or `\U00000000` escape (an odd run of backslashes
  /// before it), if any.
  package static func firstEscapedNUL(in text: String) -> (line: Int, column: Int)? {
    guard text.contains("\\u0000") || text.contains("\\U00000000") else { return nil }
    let scalars = Array(text.unicodeScalars)
    var line = 1
    var lineStart = 0
    var index = 0
    while index < scalars.count {
      let scalar = scalars[index]
      if scalar == "\n" {
        line += 1
        lineStart = index + 1
      } else if scalar == "\\" {
        var run = 0
        while index + run < scalars.count, scalars[index + run] == "\\" { run += 1 }
        let after = index + run
        if run % 2 == 1, after < scalars.count {
          let digits = scalars[after] == "u" ? 4 : scalars[after] == "U" ? 8 : 0
          if digits > 0, after + digits < scalars.count,
            scalars[(after + 1)...(after + digits)].allSatisfy({ $0 == "0" })
          {
            return (line, after - 1 - lineStart + 1)
          }
        }
        index = after
        continue
      }
      index += 1
    }
    return nil
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
