import Foundation

/// Reads and writes the schedule's state as JSON in the instance's state directory,
/// atomically (a temporary file in the same directory, then rename), so a kill mid-write
/// leaves the previous state.
public struct StateStore: Sendable {
  public let path: String

  public init(directory: String) {
    path = directory + "/schedule.json"
  }

  /// The saved state; an empty one when there is none. A damaged file is reported, not trusted.
  public func load() throws -> ScheduleState {
    guard let data = FileManager.default.contents(atPath: path) else { return ScheduleState() }
    return try JSONDecoder().decode(ScheduleState.self, from: data)
  }

  public func save(_ state: ScheduleState) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    let data = try encoder.encode(state)
    let directory = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let temporary = path + ".tmp"
    guard FileManager.default.createFile(atPath: temporary, contents: data) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
    }
    guard rename(temporary, path) == 0 else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
    }
  }
}
