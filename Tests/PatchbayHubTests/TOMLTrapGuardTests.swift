import Foundation
import Testing

@testable import PatchbayCore

/// Input that made toml++ abort (config fuzzer findings) becomes a syntax error with a
/// position; valid documents with brackets in strings, comments and values pass untouched.
@Suite struct TOMLTrapGuardTests {
  @Test(arguments: [
    ("[}instances.counter]\nplugin = \"x\"\n", 1, 2, "}"),
    ("a = 1\n\n[,instances.probe]\n", 3, 2, ","),
    ("[&routes]]\nfrom = \"a.b\"\n", 1, 2, "&"),
    ("[[ {x]]\n", 1, 4, "{"),
    ("x = \"\"\"\n[ok]\n\"\"\"\n  [\u{1}\u{3}\n", 4, 4, "\u{1}"),
  ])
  func malformedHeaderIsASyntaxErrorWithItsPosition(text: String, line: Int, column: Int, found: String) throws {
    let finding = try #require(TOMLTrapGuard.firstTrap(in: text))
    #expect(finding.line == line && finding.column == column)
    #expect(finding.found == found.unicodeScalars.first!)
    guard case .failure(let diagnostic) = TOMLDocument.parse(text, file: "conf.d/10-x.toml") else {
      Issue.record("parsed")
      return
    }
    #expect(diagnostic.description.contains("conf.d/10-x.toml:\(line):\(column)"))
    #expect(diagnostic.description.contains("table header must start with a key"))
  }

  @Test(arguments: [
    ("ports = [ },\n", 1, 11),
    ("a = [1, }]\n", 1, 9),
    ("x = 1\nlist = [\n  { a = 1 },\n  # }\n  \"}\",\n }\n]\n", 6, 2),
    ("t = { a = [ } ] }\n", 1, 13),
  ])
  func braceWhereAnArrayExpectsAValueIsASyntaxError(text: String, line: Int, column: Int) throws {
    let finding = try #require(TOMLTrapGuard.firstTrap(in: text))
    #expect(finding.line == line && finding.column == column)
    guard case .failure(let diagnostic) = TOMLDocument.parse(text, file: "patchbay.toml") else {
      Issue.record("parsed")
      return
    }
    #expect(diagnostic.description.contains("patchbay.toml:\(line):\(column)"))
    #expect(diagnostic.description.contains("ends with ']'"))
  }

  @Test func validDocumentsPass() throws {
    let text = #"""
      # [not a header} in a comment
      title = "a [}bracket"
      literal = 'it is [,]'
      multi = """
      [}still a string \"""
      """
      raw = '''
      [,raw]
      '''
      nested = [
        [1, 2],
        { a = "]" },
        # [}comment inside an array
      ]
      inline = { list = [ { b = 1 } ] }
      [ "quoted header" ]
      [[ routes ]]
      from = "a.b"
      [a.'b c'."d"]
      """#
    #expect(TOMLTrapGuard.firstTrap(in: text) == nil)
    #expect((try? TOMLDocument.parse(text, file: "ok.toml").get()) != nil)
  }

  @Test func everyFuzzerFindingIsRefusedWithoutAborting() throws {
    let findings = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Fuzz/config/findings").standardized
    let files = try FileManager.default.contentsOfDirectory(atPath: findings.path).filter { $0.hasSuffix(".toml") }
    #expect(!files.isEmpty)
    for name in files {
      let text = try String(contentsOfFile: findings.appendingPathComponent(name).path, encoding: .utf8)
      #expect(TOMLTrapGuard.firstTrap(in: text) != nil, "\(name)")
    }
  }
}
