import PatchbayPluginKit

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Reads and writes the schedule's state as JSON in the instance's state directory with the
/// kit's `AtomicFile`, so a kill mid-write leaves the previous state or the new one.
public struct StateStore: Sendable {
  public let path: String

  public init(directory: String) {
    path = directory + "/schedule.json"
  }

  /// The saved state; an empty one when there is none. A damaged file is reported, not trusted.
  public func load() throws -> ScheduleState {
    AtomicFile.removeLeftovers(of: path)
    guard let data = FileManager.default.contents(atPath: path) else { return ScheduleState() }
    return try JSONDecoder().decode(ScheduleState.self, from: data)
  }

  public func save(_ state: ScheduleState) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    try AtomicFile.write(try encoder.encode(state), to: path)
  }
}
