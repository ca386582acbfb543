import ArgumentParser
import Foundation
import PatchbayHub

/// `patchbay parse-toml FILE...` (hidden): the child side of `ParserIsolation`. It names each
/// file on stdout before parsing it, so when toml++ aborts the parent knows which file did it.
struct ParseTOMLCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "parse-toml", abstract: "Parse TOML files and exit 0 (internal: used to isolate the parser).",
    shouldDisplay: false)

  @Option(help: "Parse only the first N lines of each file.")
  var lines: Int?

  @Argument var files: [String]

  func run() throws {
    for file in files {
      FileHandle.standardOutput.write(Data((file + "\n").utf8))
      guard let lines else {
        _ = TOMLDocument.read(file)
        continue
      }
      // The same bytes the loader would parse, cut after `lines` lines.
      guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8)
      else { continue }
      let prefix = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(lines).joined(separator: "\n")
      _ = TOMLDocument.parse(prefix, file: file)
    }
  }
}
