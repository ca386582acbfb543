import Foundation
import Logging
import PatchbayCore

/// The hub's remembered state as a JSON file under the state directory, written atomically
/// (a crash at any moment leaves the old or the new file, never a torn one).
package struct StateFile: HubStateStorage {
  package let path: String
  private let logger = Logger(label: "hub")

  private let failures: WriteFailureLog

  package init(directory: String) {
    path = directory + "/hub-state.json"
    failures = WriteFailureLog(what: "state file \(path)", logger: logger)
  }

  package func load() -> HubStateStore.Snapshot? {
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
      try AtomicFile.write(try encoder.encode(snapshot), to: path)
      failures.succeeded()
    } catch {
      failures.failed("\(error)")
    }
  }
}
