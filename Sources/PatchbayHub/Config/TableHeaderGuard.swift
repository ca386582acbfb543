/// Finds table headers that toml++ cannot report as an error.
///
/// toml++ 3.x (bundled in TOMLKit 0.6.0) asserts, and so aborts the whole process, when a table
/// header starts with a character that cannot begin a key (`[}instances.a]`, `[,routes]`,
/// `[[ {x]]`): `parser::parse_key()` expects its caller to have checked, and the header path does
/// not. The config fuzzer found it. This scan runs before the real parser and turns such a header
/// into an ordinary syntax error with line and column. It follows just enough of TOML (comments,
/// the four string forms, brackets of array and inline-table values) to know where a line starts
/// a statement; everything else is left to the real parser.
enum TableHeaderGuard {
  struct Finding: Equatable {
    var line: Int
    var column: Int
    var found: Unicode.Scalar
  }

  static func firstMalformedHeader(in text: String) -> Finding? {
    var scanner = Scanner(Array(text.unicodeScalars))
    return scanner.run()
  }

  private struct Scanner {
    let text: [Unicode.Scalar]
    var index = 0
    var line = 1
    var lineStart = 0
    /// Open `[` and `{` of values: a `[` is a table header only outside any value.
    var depth = 0
    var atStatementStart = true

    init(_ text: [Unicode.Scalar]) { self.text = text }

    mutating func run() -> Finding? {
      while index < text.count {
        let scalar = text[index]
        switch scalar {
        case "\n":
          newLine(after: index)
          if depth == 0 { atStatementStart = true }
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
        case "[" where depth == 0 && atStatementStart:
          if let finding = checkHeader() { return finding }
          skipToEndOfLine()
          continue
        case "[", "{":
          depth += 1
          index += 1
        case "]", "}":
          depth = max(0, depth - 1)
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
      return Finding(line: line, column: position - lineStart + 1, found: first)
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
