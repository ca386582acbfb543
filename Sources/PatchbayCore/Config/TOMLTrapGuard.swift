/// Finds the malformed TOML that toml++ aborts on instead of reporting.
///
/// toml++ 3.4 (bundled in TOMLKit 0.6.0) keeps its `assert`s in every build (SwiftPM defines no
/// `NDEBUG`), and some of them check what the parser's own callers forgot to check, so a
/// malformed file aborts the whole process. The config fuzzer found two such traps:
/// - a table header that starts with a character that cannot begin a key (`[}instances.a]`,
///   `[,routes]`, `[[ {x]]`): `parser::parse_key()` asserts;
/// - a `}` where an array expects a value (`ports = [ }`, `a = [1, }]`):
///   `parser::parse_value()` asserts `!is_value_terminator(*cp)`.
/// This scan runs before the real parser and turns both into ordinary syntax errors with line
/// and column. It follows just enough of TOML (comments, the four string forms, brackets of
/// array and inline-table values) to know where a statement starts and which bracket is open;
/// everything else is left to the real parser. The CLI parses in a child process as well
/// (`ParserIsolation`), for traps nobody has found yet.
package enum TOMLTrapGuard {
  package struct Finding: Equatable {
    var line: Int
    var column: Int
    var found: Unicode.Scalar
    var problem: String
  }

  package static func firstTrap(in text: String) -> Finding? {
    var scanner = Scanner(Array(text.unicodeScalars))
    return scanner.run()
  }

  private struct Scanner {
    let text: [Unicode.Scalar]
    var index = 0
    var line = 1
    var lineStart = 0
    /// The open `[` and `{` of values, innermost last: a `[` is a table header only outside
    /// any value, and a `}` inside an array is the second trap.
    var open: [Unicode.Scalar] = []
    var atStatementStart = true

    init(_ text: [Unicode.Scalar]) { self.text = text }

    mutating func run() -> Finding? {
      while index < text.count {
        let scalar = text[index]
        switch scalar {
        case "\n":
          newLine(after: index)
          if open.isEmpty { atStatementStart = true }
          index += 1
          continue
        case " ", "\t", "\r":
          index += 1
          continue
        case "#":
          skipToEndOfLine()
          continue
        case "\"", "'":
          skipString(delimiter: scalar)
        case "[" where open.isEmpty && atStatementStart:
          if let finding = checkHeader() { return finding }
          skipToEndOfLine()
          continue
        case "[", "{":
          open.append(scalar)
          index += 1
        case "}" where open.last == "[":
          return finding(at: index, "an array holds values separated by commas and ends with ']'")
        case "]", "}":
          _ = open.popLast()
          index += 1
        default:
          index += 1
        }
        atStatementStart = false
      }
      return nil
    }

    /// At the `[` of a header: the first character of its key must be one toml++ accepts.
    func checkHeader() -> Finding? {
      var position = index + 1
      if position < text.count, text[position] == "[" { position += 1 }
      while position < text.count, text[position] == " " || text[position] == "\t" { position += 1 }
      guard position < text.count else { return nil }
      let first = text[position]
      if Self.isBareKeyCharacter(first) || first == "\"" || first == "'" || first == "]" { return nil }
      return finding(at: position, "a table header must start with a key (letters, digits, _ or -, or a quoted key)")
    }

    func finding(at position: Int, _ problem: String) -> Finding {
      Finding(line: line, column: position - lineStart + 1, found: text[position], problem: problem)
    }

    static func isBareKeyCharacter(_ scalar: Unicode.Scalar) -> Bool {
      switch scalar {
      case "a"..."z", "A"..."Z", "0"..."9", "_", "-": return true
      default: return false
      }
    }

    mutating func newLine(after position: Int) {
      line += 1
      lineStart = position + 1
    }

    mutating func skipToEndOfLine() {
      while index < text.count, text[index] != "\n" { index += 1 }
    }

    /// Moves past a basic, literal or multi-line string that starts at `index`.
    mutating func skipString(delimiter: Unicode.Scalar) {
      let multiLine = index + 2 < text.count && text[index + 1] == delimiter && text[index + 2] == delimiter
      index += multiLine ? 3 : 1
      let escapes = delimiter == "\""
      while index < text.count {
        let scalar = text[index]
        if escapes && scalar == "\\" {
          if index + 1 < text.count, text[index + 1] == "\n" { newLine(after: index + 1) }
          index += 2
          continue
        }
        if scalar == "\n" {
          // A single-line string cannot span lines: the real parser reports it.
          guard multiLine else { return }
          newLine(after: index)
        }
        if scalar == delimiter {
          guard multiLine else {
            index += 1
            return
          }
          var run = 0
          while index + run < text.count, text[index + run] == delimiter, run < 5 { run += 1 }
          index += run
          if run >= 3 { return }
          continue
        }
        index += 1
      }
    }
  }
}
