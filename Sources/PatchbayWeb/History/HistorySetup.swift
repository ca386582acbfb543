import ArgumentParser
import Foundation
import Logging
import PatchbayHub
import PatchbayRecorder
import PatchbayValues

/// Reads the hub's config for the history: the `[recorder]` table and the state directory.
enum HistorySetup {
  /// The feed, or nil when the history is off. A mistake in `[recorder]` stops patchbay-web with
  /// the file and key; the rest of the config is the hub's to judge.
  static func feed(explicitConfig: String?, socket: String, logger: Logger) throws -> HistoryFeed? {
    let file = explicitConfig ?? Defaults.mainConfigFile
    guard FileManager.default.fileExists(atPath: file) else {
      if explicitConfig != nil { throw ValidationError("--config \(file): no such file") }
      logger.notice("history off: no hub config at \(file) (--config FILE names it)")
      return nil
    }
    let (config, diagnostics) = ConfigLoader().loadCollectingErrors(mainFile: file)
    let mistakes = diagnostics.filter { $0.key == "recorder" || $0.key?.hasPrefix("recorder.") == true }
    guard mistakes.isEmpty else {
      throw CommandFailure(mistakes.map(\.description).joined(separator: "\n"))
    }
    let settings = config.recorder
    guard settings.enabled else {
      logger.notice("history off: [recorder] enabled = false in \(settings.file ?? file)")
      return nil
    }
    let path = RecorderSettings.databasePath(stateDirectory: config.hub.stateDirectory)
    let recorder = HistoryRecorder(
      path: path, policy: HistoryPolicy(retentionDays: settings.retentionDays, maximumMB: settings.maxSizeMB),
      report: { logger.warning("\($0)") })
    logger.info(
      "history: \(settings.ports.map { $0.joined(separator: ", ") } ?? "every state output") into \(path)")
    return HistoryFeed(settings: settings, recorder: recorder, socket: socket)
  }
}
