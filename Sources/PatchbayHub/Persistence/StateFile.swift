import Foundation
import Logging
import PatchbayCore
import Synchronization

import enum PatchbayPluginKit.AtomicFile

#if canImport(Glibc)
  import Glibc
#endif

/// The hub's remembered state as a JSON file under the state directory, written atomically
/// (a crash at any moment leaves the old or the new file, never a torn one), and capped: a file
/// over `sizeLimit` is neither read (moved aside, the hub starts without it) nor written.
package final class StateFile: HubStateStorage {
  /// A home's ports and scenes take kilobytes; this much means something is piling up.
  package static let sizeLimit = 16 << 20
  package let path: String
  private let sizeLimit: Int
  private let logger = Logger(label: "hub")
  /// One "too big to save" line, not one per save.
  private let refusedToSave = Atomic(false)

  private let failures: WriteFailureLog

  package init(directory: String, sizeLimit: Int = StateFile.sizeLimit) {
    path = directory + "/hub-state.json"
    self.sizeLimit = sizeLimit
    failures = WriteFailureLog(what: "state file \(path)", logger: Logger(label: "hub"))
  }

  package func load() -> HubStateStore.Snapshot? {
    removeLeftoverTemporaries()
    var info = stat()
    if stat(path, &info) == 0, Int(info.st_size) > sizeLimit {
      let aside = path + ".oversized"
      let moved = rename(path, aside) == 0
      let message =
        "state file \(path) is \(Self.megabytes(Int(info.st_size))), over the limit of \(Self.megabytes(sizeLimit)): "
        + (moved ? "moved to \(aside); " : "") + "starting without retained values"
      logger.error("\(message)")
      return nil
    }
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    do {
      return try JSONDecoder().decode(HubStateStore.Snapshot.self, from: data)
    } catch {
      logger.error("state file \(path) is unreadable (\(error)); starting with empty state")
      return nil
    }
  }

  package func save(_ snapshot: HubStateStore.Snapshot) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    do {
      let data = try encoder.encode(snapshot)
      guard data.count <= sizeLimit else {
        if !refusedToSave.exchange(true, ordering: .relaxed) {
          let message =
            "state file \(path) not saved: it would be \(Self.megabytes(data.count)), over the limit of "
            + "\(Self.megabytes(sizeLimit)) (retained values of ports no config names are forgotten after 7 days)"
          logger.error("\(message)")
        }
        return
      }
      refusedToSave.store(false, ordering: .relaxed)
      try AtomicFile.write(data, to: path)
      failures.succeeded()
    } catch {
      failures.failed("\(error)")
    }
  }

  /// Temp files of writes a `kill -9` interrupted. Only this hub writes here (it holds the
  /// state directory's lock), so every one of them is dead.
  private func removeLeftoverTemporaries() {
    let removed = AtomicFile.removeLeftovers(of: path)
    if removed > 0 { logger.info("removed \(removed) temp file\(removed == 1 ? "" : "s") of interrupted state writes") }
  }

  private static func megabytes(_ bytes: Int) -> String {
    String(format: "%.1f MB", Double(bytes) / 1_048_576)
  }
}
