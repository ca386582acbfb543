import ArgumentParser
import Foundation
import PatchbayHub

/// `patchbay history PORT [--since 6h]`: finds the history database in the config's state
/// directory and runs patchbay-history on it (package patchbay-web: the hub links no SQLite).
struct HistoryCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "history",
    abstract: "Print the recorded values of a port, oldest first (patchbay-web records them; runs patchbay-history).")
  @OptionGroup var options: ConfigOptions
  @Argument(help: "The port, INSTANCE.PORT (an output, e.g. 'hall.temperature').") var port: String
  @Option(help: "How far back: a number with s, m, h, d or w (90s, 30m, 6h, 7d).") var since: String = "6h"
  @Flag(help: "Print the answer of GET /api/history (JSON) instead of lines.") var json = false

  func run() throws {
    let config = try options.load()
    let database = RecorderSettings.databasePath(stateDirectory: config.hub.stateDirectory)
    guard FileManager.default.fileExists(atPath: database) else {
      let off =
        config.recorder.enabled ? "" : " ([recorder] enabled = false in \(config.recorder.file ?? options.config))"
      printError(
        "no history yet: \(database) does not exist. patchbay-web records it while it runs\(off); see docs/web.md")
      throw ExitCode(1)
    }
    try PluginHelper.exec(
      "patchbay-history", package: "patchbay-web",
      ["--database", database, "--since", since] + (json ? ["--json"] : []) + ["--", port])
  }
}
